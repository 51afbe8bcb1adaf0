/**
 * The configuration's validation: the YAML reader and the schema's checks (zod, the cron
 * readers), for a file read afresh and for what is made in the UI or API. A command that
 * reads a file it validated before (load.ts keeps its validated form) resolves it
 * (config.ts) without loading any of this: about a sixth of a check's start-up.
 */
import { CORE_SCHEMA, load, YAMLException } from 'js-yaml';
import type { IntentEntry, IntentRule } from '../policy/intent.js';
import { isBuiltInPreset } from './agents.js';
import { parseCheckedConfig, resolveApiSite } from './config.js';
import type { Config, ConfigContext, Presets, SiteConfig } from './config.js';
import { ConfigError } from './errors.js';
import { resolveIntent } from './intent.js';
import { checkExpandedSize, describeIssue, refuseUnstorable } from './issues.js';
import { resolveChannels } from './notify.js';
import type { AlertTargets } from './notify.js';
import {
  channelSettings,
  configFileSchema,
  frequentScheduleProblem,
  intentList,
  PRESET_NAME,
  presetSchema,
  siteSettings,
} from './schema.js';
import type { ChannelSettings, SiteSettings } from './schema.js';
import { unstorableText } from './text.js';

export { frequentScheduleProblem };

/** The YAML tree of configuration text, not yet validated; throws ConfigError naming the line. */
export function readConfigTree(text: string, file: string): unknown {
  try {
    // js-yaml: a large configuration (10,000 sites) parses in a fraction of the time and
    // memory of a full document model. The core schema keeps dates and the like as text.
    return load(text, { schema: CORE_SCHEMA, filename: file }) ?? {};
  } catch (error) {
    if (!(error instanceof YAMLException)) throw error;
    const where = error.mark === undefined ? '' : ` line ${error.mark.line + 1}:`;
    throw new ConfigError(`${file}:${where} ${error.reason}`);
  }
}

/**
 * Parses and validates configuration text (`raw`: its YAML tree, when read already).
 * Pure but for path resolution; throws ConfigError.
 */
export function parseConfig(
  text: string,
  context: ConfigContext,
  raw: unknown = readConfigTree(text, context.file),
): Config {
  checkExpandedSize(raw, context.file);
  // Values are made of the file's text: without a backslash (YAML's escapes), a NUL or a
  // lone surrogate in the text there can be none in them, and the walk is not needed.
  if (text.includes('\\') || unstorableText(text) !== undefined)
    refuseUnstorable(raw, `${context.file}: `);
  const parsed = configFileSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ConfigError(`${context.file}: ${describeIssue(parsed.error.issues[0]!, raw)}`);
  }
  return parseCheckedConfig(parsed.data, context);
}

/**
 * A site added in the UI or API: its origin and settings (`SiteSettings`, as the file
 * writes a site), validated with the file's rules and resolved against its top-level
 * settings. Throws ConfigError with one line naming the key: "watch[2]: …".
 */
export function resolveSiteSettings(
  config: Pick<Config, 'siteDefaults' | 'notify' | 'presets' | 'registry'>,
  origin: string,
  settings: unknown,
): { settings: SiteSettings; site: SiteConfig } {
  refuseUnstorable(settings);
  const parsed = siteSettings.safeParse(settings);
  if (!parsed.success)
    throw new ConfigError(describeIssue(parsed.error.issues[0]!, settings, [], 'site'));
  return { settings: parsed.data, site: resolveApiSite(config, origin, parsed.data) };
}

/**
 * Default channels made in the UI or API, `{email?: […], webhooks?: [{url, secret?,
 * format?}]}`: checked as the file's are (an email needs notify.email), without the
 * environment. Throws ConfigError with one line naming the key.
 */
export function parseChannels(
  config: Pick<Config, 'notify'>,
  input: unknown,
): { settings: ChannelSettings; targets: Pick<AlertTargets, 'email' | 'webhooks'> } {
  refuseUnstorable(input);
  const parsed = channelSettings.safeParse(input);
  if (!parsed.success)
    throw new ConfigError(describeIssue(parsed.error.issues[0]!, input, [], 'channels'));
  const targets = resolveChannels(config.notify, parsed.data, {}, '');
  return { settings: parsed.data, targets };
}

/**
 * A crawler preset made in the UI or API, `{agents: ["Googlebot", …]}`, under a name no
 * built-in or file preset has. Throws ConfigError with one line naming the key.
 */
export function parsePreset(
  config: Pick<Config, 'presets' | 'file'>,
  name: string,
  input: unknown,
): string[] {
  if (!PRESET_NAME.test(name))
    throw new ConfigError(
      `name: "${name}" must be a preset name: "@" then lower-case letters, digits or "-" (at most 40)`,
    );
  if (isBuiltInPreset(name))
    throw new ConfigError(`name: ${name} is built in: choose another name`);
  refuseUnstorable(input);
  const parsed = presetSchema.safeParse(input);
  if (!parsed.success)
    throw new ConfigError(describeIssue(parsed.error.issues[0]!, input, [], 'preset'));
  const seen = new Set<string>();
  return parsed.data.agents.filter((token) => {
    const key = token.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Intent entries sent to the API or stored by the UI, checked with the file's rules:
 * the list, or a one-line ConfigError naming the entry.
 */
export function parseIntent(
  input: unknown,
  origin: string,
  presets: Presets,
): { entries: IntentEntry[]; rules: IntentRule[] } {
  refuseUnstorable(input);
  const parsed = intentList.safeParse(input);
  if (!parsed.success)
    throw new ConfigError(describeIssue(parsed.error.issues[0]!, { intent: input }, ['intent']));
  const entries = parsed.data;
  return { entries, rules: resolveIntent(entries, origin, presets, 'intent') };
}
