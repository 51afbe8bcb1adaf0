/**
 * The AI crawler registry robowatch ships (registry/ai-robots.json, see its README), read
 * once per process; and a registry read from bytes (a refresh).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fromRoot } from '../lib/package-root.js';
import { normaliseRegistry } from '../policy/registry.js';
import type { ActiveRegistry } from '../policy/registry.js';

/** The shipped copy's date: ai.robots.txt's commit 738c80d (registry/README.md). */
export const SHIPPED_REGISTRY_DATE = '2026-08-22';

let shipped: { active: ActiveRegistry; content: Uint8Array } | undefined;

/** The shipped registry's JSON (registry/ai-robots.json in robowatch's package). */
export function shippedRegistryContent(): Uint8Array {
  return shippedCopy().content;
}

/** The shipped registry. */
export function shippedRegistry(): ActiveRegistry {
  return shippedCopy().active;
}

function shippedCopy(): { active: ActiveRegistry; content: Uint8Array } {
  if (shipped === undefined) {
    const content = readFileSync(fromRoot('registry', 'ai-robots.json'));
    shipped = { active: readRegistry(content, 'shipped', SHIPPED_REGISTRY_DATE), content };
  }
  return shipped;
}

/**
 * A registry from its JSON bytes. Throws an Error naming what is wrong when the bytes are
 * not JSON or hold no crawler.
 */
export function readRegistry(bytes: Uint8Array, source: string, date: string): ActiveRegistry {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: false }).decode(bytes)) as unknown;
  } catch (error) {
    throw new Error(`the registry is not JSON: ${(error as Error).message}`, { cause: error });
  }
  const registry = normaliseRegistry(json);
  if (registry.agents.length === 0)
    throw new Error(
      registry.problems[0] ?? 'the registry names no crawler (an object keyed by product token)',
    );
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  return { registry, version: { sha256, source, date, agents: registry.agents.length } };
}
