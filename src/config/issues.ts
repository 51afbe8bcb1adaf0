/**
 * What is wrong in a configuration file, in one line (the key, the value, the likely
 * typo), and the limits on its size.
 */
import type { ZodError } from 'zod';
import { ConfigError } from './errors.js';
import { findUnstorableText } from './text.js';
import { KNOWN_KEYS } from './schema.js';
import { grouped } from '../policy/wording/words.js';
import { closest } from './closest.js';

/** Values in a configuration, aliases expanded: 100,000 sites of 20 URLs need 2.5 million. */
const MAX_VALUES = 5_000_000;
/** Watched URLs in all, aliases expanded: 100,000 sites of 20 URLs. */
const MAX_WATCHES = 2_000_000;

/**
 * Refuses a document that YAML aliases (`*name`) blow up: a list of 1,000 URLs reused by
 * 4,000 sites is 4 million watches from 113 KB. Counts values as they would be read,
 * each alias as often as it is used, and stops counting at the limit.
 */
export function checkExpandedSize(raw: unknown, file: string): void {
  let values = 0;
  const stack: unknown[] = [raw];
  while (stack.length > 0) {
    const value = stack.pop();
    if (++values > MAX_VALUES)
      throw new ConfigError(
        `${file}: more than ${grouped(MAX_VALUES)} values once its YAML aliases (*name) are expanded; reuse lists less`,
      );
    if (Array.isArray(value)) for (const item of value as unknown[]) stack.push(item);
    else if (value !== null && typeof value === 'object')
      for (const item of Object.values(value) as unknown[]) stack.push(item);
  }
  const sites = (raw as { sites?: unknown }).sites;
  if (!Array.isArray(sites)) return;
  let watches = 0;
  for (const site of sites as unknown[]) {
    const watch = (site as { watch?: unknown } | null)?.watch;
    if (Array.isArray(watch)) watches += watch.length;
  }
  if (watches > MAX_WATCHES)
    throw new ConfigError(
      `${file}: sites watch ${grouped(watches)} URLs in all; at most ${grouped(MAX_WATCHES)} (YAML aliases (*name) count each time they are used)`,
    );
}

/**
 * Refuses text the database cannot keep (a NUL character, a lone surrogate) anywhere in
 * settings, naming where: they are stored as written.
 */
export function refuseUnstorable(value: unknown, file = ''): void {
  const problem = findUnstorableText(value);
  if (problem !== undefined) throw new ConfigError(`${file}${problem}`);
}

type Issue = ZodError['issues'][number];

/**
 * One issue as "key.path: what is wrong", with the value actually found where it helps.
 * `root` names the document: the file, or a site sent to the API.
 */
export function describeIssue(
  issue: Issue,
  raw: unknown,
  base: readonly PropertyKey[] = [],
  root: '' | 'site' | 'preset' | 'channels' = '',
): string {
  const at = [...base, ...issue.path];
  if (issue.code === 'invalid_union') {
    // Report the branch that accepted the value's type: its complaint is the real one.
    // A branch of another type or another literal ("auto") did not accept it at all.
    const branch = issue.errors.find((issues) =>
      issues.some(
        (i) => (i.code !== 'invalid_type' && i.code !== 'invalid_value') || i.path.length > 0,
      ),
    );
    if (branch !== undefined) return describeIssue(branch[0]!, raw, at, root);
  }
  if (issue.code === 'invalid_key' && issue.issues[0] !== undefined)
    // A record's key (a preset's name): its own complaint, at the key.
    return `${formatPath(at)}: ${issue.issues[0].message}`;
  const path = formatPath(at);
  if (issue.code === 'unrecognized_keys') {
    const section = [root, ...at.filter((p) => typeof p === 'string')].filter((p) => p !== '');
    const known = KNOWN_KEYS[section.join('.')] ?? [];
    const keys = issue.keys
      .map((k) => {
        const near = closest(k, known);
        return near === undefined ? `"${k}"` : `"${k}" (did you mean "${near}"?)`;
      })
      .join(', ');
    return `${path === '' ? '' : `${path}: `}unknown key${issue.keys.length > 1 ? 's' : ''} ${keys}`;
  }
  const found = valueAt(raw, at);
  const message =
    issue.code === 'invalid_type' && found === undefined
      ? 'is required'
      : issue.code === 'invalid_type' && !issue.message.startsWith('must')
        ? `must be ${typeName(issue.expected)}, not ${describeValue(found)}`
        : issue.message;
  return `${path === '' ? '(top level)' : path}: ${message}`;
}

/** A type as describeValue names a value of it: a list, a mapping, a string, an integer. */
function typeName(expected: string): string {
  if (expected === 'array') return 'a list';
  if (expected === 'object') return 'a mapping';
  return `${/^[aeiou]/.test(expected) ? 'an' : 'a'} ${expected}`;
}

function valueAt(raw: unknown, path: readonly PropertyKey[]): unknown {
  let value = raw;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return `${typeof value} ${JSON.stringify(value)}`;
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    out += typeof part === 'number' ? `[${part}]` : `${out === '' ? '' : '.'}${String(part)}`;
  }
  return out;
}
