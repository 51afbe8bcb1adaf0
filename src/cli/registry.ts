import type { Command } from 'commander';
import { readRegistry, shippedRegistry } from '../config/registry.js';
import { oneLine, UsageError } from '../lib/errors.js';
import { explainCause } from '../policy/wording/explain.js';
import { registryCause } from '../policy/registry-update.js';
import { compareRegistries, describeVersion, PURPOSES, PURPOSE_WORDS } from '../policy/registry.js';
import type { ActiveRegistry, Registry } from '../policy/registry.js';
import { parseRobotsTxt } from '../robots/index.js';
import { readInput, write } from './io.js';
import type { CliInput } from './io.js';

interface RegistryOptions {
  readonly registry?: string;
  readonly compare?: string;
  readonly robots?: string;
  readonly json?: boolean;
}

/** Tokens as a line: the first few, then how many more. */
const some = (tokens: readonly string[], shown = 12) =>
  tokens.length <= shown
    ? tokens.join(', ')
    : `${tokens.slice(0, shown).join(', ')} and ${tokens.length - shown} more`;

async function read(path: string, from: CliInput): Promise<ActiveRegistry> {
  const bytes = await readInput(path, 'registry', from);
  try {
    return readRegistry(bytes, path, new Date().toISOString());
  } catch (error) {
    throw new UsageError(`${path}: ${oneLine(error)}`);
  }
}

/** By purpose, then by operator (most crawlers first). */
function listing(registry: Registry): string[] {
  const lines: string[] = [];
  for (const purpose of PURPOSES) {
    const tokens = registry.agents.filter((a) => a.purposes.includes(purpose)).map((a) => a.token);
    if (tokens.length === 0) continue;
    const preset = purpose === 'other' ? '' : ` (@ai-${purpose})`;
    lines.push(`${PURPOSE_WORDS[purpose]}${preset}: ${tokens.length}: ${some(tokens)}`);
  }
  const operators = new Map<string, string[]>();
  for (const a of registry.agents)
    if (a.operatorSlug !== null)
      operators.set(a.operatorSlug, [...(operators.get(a.operatorSlug) ?? []), a.token]);
  lines.push(`Operators (@operator:<name>): ${operators.size}`);
  for (const [slug, tokens] of [...operators].sort(
    (a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]),
  ))
    lines.push(`  @operator:${slug}: ${tokens.join(', ')}`);
  const unknown = registry.agents.filter((a) => a.operatorSlug === null).map((a) => a.token);
  if (unknown.length > 0) lines.push(`  operator not known: ${some(unknown)}`);
  return lines;
}

/** `robowatch registry`: the AI crawler registry, and what an update of it changes. */
export function registerRegistry(program: Command, from: CliInput): void {
  const { io } = from;
  program
    .command('registry')
    .summary('list the AI crawler registry, or what an update of it changes')
    .description(
      'Lists the AI crawler registry the @ai presets come from (the copy robowatch ships, or\n' +
        'a file in the ai.robots.txt format): its crawlers by purpose and by operator. With\n' +
        '--compare, the crawlers added and removed since an older registry; with --robots as\n' +
        'well, what that means for a robots.txt file: which new crawlers it lets in.',
    )
    .option(
      '--registry <file>',
      'a registry file (robots.json of ai.robots.txt) instead of the shipped one',
    )
    .option('--compare <file>', 'an older registry to compare with')
    .option(
      '--robots <file>',
      'a robots.txt file to say what the update means for (with --compare)',
    )
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      `
Examples:
  robowatch registry                                        # the shipped registry
  robowatch registry --compare old.json --robots robots.txt # what the update lets in`,
    )
    .action(async (options: RegistryOptions) => {
      if (options.robots !== undefined && options.compare === undefined)
        throw new UsageError(
          '--robots needs --compare (the older registry the update starts from)',
        );
      const current =
        options.registry === undefined ? shippedRegistry() : await read(options.registry, from);
      if (options.compare === undefined) {
        const out = options.json
          ? JSON.stringify({ version: current.version, agents: current.registry.agents }, null, 2)
          : [`${describeVersion(current.version)}`, ...listing(current.registry)].join('\n');
        await write(io.stdout, `${out}\n`);
        return;
      }
      const older = await read(options.compare, from);
      const { added, removed } = compareRegistries(older.registry, current.registry);
      const robots =
        options.robots === undefined
          ? undefined
          : parseRobotsTxt(await readInput(options.robots, 'robots file', from));
      const cause = robots === undefined ? null : registryCause(robots, older, current);
      if (options.json) {
        await write(
          io.stdout,
          `${JSON.stringify(
            {
              version: current.version,
              previous: older.version,
              added: added.map((a) => ({
                token: a.token,
                operator: a.operator,
                purposes: a.purposes,
              })),
              removed: removed.map((a) => a.token),
              ...(robots === undefined ? {} : { robots: cause }),
            },
            null,
            2,
          )}\n`,
        );
        return;
      }
      const lines = [
        `${describeVersion(current.version)}, compared with ${describeVersion(older.version)}:`,
        `${added.length} added${
          added.length === 0
            ? ''
            : `: ${some(
                added.map((a) => a.token),
                40,
              )}`
        }`,
        `${removed.length} removed${
          removed.length === 0
            ? ''
            : `: ${some(
                removed.map((a) => a.token),
                40,
              )}`
        }`,
      ];
      if (robots !== undefined) {
        if (cause === null)
          lines.push(`${options.robots}: nothing changes (no crawler added or removed)`);
        else {
          const said = explainCause(cause, { agents: [], at: new Date() });
          lines.push(`${options.robots}: ${said.title}`, `  ${said.consequence}`);
          for (const detail of said.details) lines.push(`  ${detail}`);
        }
      }
      await write(io.stdout, `${lines.join('\n')}\n`);
    });
}
