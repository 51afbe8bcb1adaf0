/**
 * The AI crawler registry robowatch ships (registry/ai-robots.json, see its README), read
 * once per process.
 */
import { readFileSync } from 'node:fs';
import { normaliseRegistry } from '../policy/registry.js';
import type { Registry } from '../policy/registry.js';

let shipped: Registry | undefined;

/** The shipped registry (the same two levels above src/config and dist/config). */
export function shippedRegistry(): Registry {
  shipped ??= normaliseRegistry(
    JSON.parse(
      readFileSync(new URL('../../registry/ai-robots.json', import.meta.url), 'utf8'),
    ) as unknown,
  );
  return shipped;
}
