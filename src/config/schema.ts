import { z } from 'zod';
import { PROFILES } from '../robots/index.js';
import { AGENT_PRESETS, DEFAULT_AGENTS } from './agents.js';

const profile = z.enum(PROFILES as readonly ['google', 'rfc9309', 'legacy'], {
  error: `must be one of ${PROFILES.join(', ')}`,
});

const productToken = z
  .string()
  .regex(/^(?:[A-Za-z_-]+|\*)$/, 'must be a crawler product token (letters, "-", "_") or "*"');

/** An agent entry: a token, a preset ("@search", "@ai"), or {token, profile}. */
const agentEntry = z.union(
  [
    z.string().refine((s) => !s.startsWith('@') || s in AGENT_PRESETS, {
      error: `unknown preset (expected ${Object.keys(AGENT_PRESETS).join(', ')})`,
    }),
    z.strictObject({ token: productToken, profile: profile.optional() }),
  ],
  { error: 'must be a crawler token, a preset or {token, profile}' },
);

const agentList = z.array(agentEntry).min(1, 'must name at least one agent');

const site = z.strictObject({
  url: z.string({ error: 'must be the site origin, e.g. https://example.com' }),
  watch: z
    .array(z.string({ error: 'must be a path or an absolute URL' }))
    .min(1, 'must list at least one URL to watch'),
  agents: agentList.optional(),
  profile: profile.optional(),
});

/** A whole number in [min, max], with a message that says so. */
function integer(min: number, max: number, unit = '') {
  const message = `must be a whole number from ${min} to ${max}${unit}`;
  return z.number({ error: message }).int(message).min(min, message).max(max, message);
}

const fetchSettings = z.strictObject({
  userAgent: z.string().min(1, 'must not be empty').optional(),
  timeoutMs: integer(100, 600_000, ' (milliseconds)').default(30_000),
  allowPrivateAddresses: z.boolean({ error: 'must be true or false' }).default(false),
  confirmRetries: integer(0, 10).default(2),
  confirmDelayMs: integer(0, 600_000, ' (milliseconds)').default(5_000),
  concurrency: integer(1, 1_000).default(16),
});

/** The configuration file as written (before presets and URLs are resolved). */
export const configFileSchema = z.strictObject({
  dataDir: z.string().min(1).default('./data'),
  agents: agentList.default([...DEFAULT_AGENTS]),
  sites: z.array(site).default([]),
  fetch: fetchSettings.default(fetchSettings.parse({})),
});

export type ConfigFile = z.infer<typeof configFileSchema>;
export type AgentEntry = z.infer<typeof agentEntry>;
