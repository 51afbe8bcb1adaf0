/** A site's crawlers and presets: tokens checked, presets expanded, unknown ones named. */
import type { Profile } from '../robots/index.js';
import { ConfigError } from './errors.js';
import type { AgentEntry } from './schema.js';
import { closest } from './closest.js';
import type { AgentSpec, Presets } from './config.js';

export function resolveAgents(
  entries: readonly AgentEntry[],
  siteProfile: Profile,
  where: string,
  presets: Presets,
): AgentSpec[] {
  const explicit = new Map<string, AgentSpec>();
  const fromPresets = new Map<string, AgentSpec>();
  for (const [i, entry] of entries.entries()) {
    if (typeof entry === 'string' && entry.startsWith('@')) {
      const members = Object.hasOwn(presets, entry) ? presets[entry] : undefined;
      if (members === undefined)
        throw new ConfigError(unknownPreset(`${where}[${i}]`, entry, presets));
      for (const token of members) {
        fromPresets.set(token.toLowerCase(), { token, profile: siteProfile });
      }
      continue;
    }
    const spec: AgentSpec =
      typeof entry === 'string'
        ? { token: checkToken(entry, where), profile: siteProfile }
        : { token: entry.token, profile: entry.profile ?? siteProfile };
    const key = spec.token.toLowerCase();
    if (explicit.has(key)) throw new ConfigError(`${where}: ${spec.token} is listed twice`);
    explicit.set(key, spec);
  }
  // Explicit entries win over the same token from a preset; the order is the list's.
  const merged = new Map(fromPresets);
  for (const [key, spec] of explicit) merged.set(key, spec);
  return [...merged.values()];
}

/**
 * "unknown preset": with the names it could have meant; the registry's operators are
 * named only when an @operator: preset was asked for (there are a hundred of them).
 */
function unknownPreset(where: string, name: string, presets: Presets): string {
  const names = Object.keys(presets);
  if (name.startsWith('@operator:')) {
    const operators = names.filter((n) => n.startsWith('@operator:'));
    const asked = name.slice('@operator:'.length);
    const near = closest(
      asked,
      operators.map((n) => n.slice('@operator:'.length)),
    );
    const hint = near === undefined ? '' : ` (did you mean @operator:${near}?)`;
    return `${where}: the AI crawler registry has no operator "${asked}"${hint}; \`robowatch registry\` lists its ${operators.length} operators`;
  }
  const plain = names.filter((n) => !n.startsWith('@operator:'));
  return `${where}: unknown preset "${name}" (expected ${plain.join(', ')}, or @operator:<name> of the AI crawler registry)`;
}

function checkToken(token: string, where: string): string {
  if (!/^(?:[A-Za-z_-]+|\*)$/.test(token)) {
    throw new ConfigError(
      `${where}: "${token}" is not a crawler product token (letters, "-", "_") or "*"`,
    );
  }
  return token;
}
