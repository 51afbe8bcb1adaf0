import type { Command } from 'commander';
import { FatalError, UsageError } from '../lib/errors.js';
import { shippedRegistry } from '../config/registry.js';
import { findContradictions } from '../policy/contradictions.js';
import { isProfile, parseRobotsTxt, PROFILES } from '../robots/index.js';
import { readInput, write } from './io.js';
import { visibleControls } from '../policy/wording/format.js';
import type { CliInput } from './io.js';

/** `robowatch lint FILE`: the findings of a robots.txt file, one per line. */
export function registerLint(program: Command, from: CliInput): void {
  const { io } = from;
  program
    .command('lint')
    .summary('report problems in a robots.txt file')
    .description(
      'Prints each finding with its line: rules outside groups, typos only Google accepts,\n' +
        'missing colons, unknown keys, paths without "/", HTML or UTF-16 instead of robots.txt,\n' +
        'content past 500 KiB, usage preferences the rules contradict for the AI crawler\n' +
        'registry, and more.',
    )
    .argument('<file>', 'the robots.txt file ("-" reads standard input)')
    .option('--profile <profile>', `interpretation: ${PROFILES.join(', ')}`, 'google')
    .option('--json', 'print one JSON object per finding')
    .option('--strict', 'exit with status 1 when a finding is an error (to gate a deploy)')
    .addHelpText(
      'after',
      `
Examples:
  robowatch lint public/robots.txt
  robowatch lint --strict public/robots.txt && deploy   # stops on an error`,
    )
    .action(
      async (file: string, options: { profile: string; json?: boolean; strict?: boolean }) => {
        if (!isProfile(options.profile)) {
          throw new UsageError(
            `unknown profile "${options.profile}" (expected ${PROFILES.join(', ')})`,
          );
        }
        const bytes = await readInput(file, 'robots file', from);
        const parsed = parseRobotsTxt(bytes, { profile: options.profile });
        // Where the rules and the usage preferences disagree, for the registry's crawlers.
        const findings = [
          ...parsed.lint,
          ...findContradictions(parsed, shippedRegistry().registry).map((c) => ({
            code: 'usage-contradiction',
            severity: 'warning' as const,
            line: c.line,
            message: c.message,
          })),
        ].sort((a, b) => a.line - b.line);
        const lines = findings.map((f) =>
          options.json
            ? JSON.stringify(f)
            : `line ${f.line}  ${f.severity.padEnd(7)}  ${f.code}  ${visibleControls(f.message)}`,
        );
        if (!options.json) {
          const rules = parsed.groups.reduce((sum, g) => sum + g.rules.length, 0);
          const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
          lines.push(
            `${count(findings.length, 'finding')}; ${count(parsed.groups.length, 'group')}, ` +
              `${count(rules, 'rule')}, ${count(parsed.sitemaps.length, 'sitemap')} in ` +
              `${count(parsed.truncated ? parsed.lineCount : linesOf(bytes, parsed.lineCount), 'line')}`,
          );
        }
        if (lines.length > 0) await write(io.stdout, lines.join('\n') + '\n');
        const errors = parsed.lint.filter((f) => f.severity === 'error').length;
        if (options.strict && errors > 0)
          throw new FatalError(
            `${file}: ${errors} error${errors === 1 ? '' : 's'} (--strict): crawlers would not read this file as intended`,
          );
      },
    );
}

/**
 * Lines as an editor counts them: the reference parser counts the empty text after a
 * final line break as a line of its own, and an empty file as one empty line.
 */
function linesOf(bytes: Uint8Array, parsedLines: number): number {
  if (bytes.length === 0) return 0;
  const last = bytes[bytes.length - 1];
  return last === 0x0a || last === 0x0d ? parsedLines - 1 : parsedLines;
}
