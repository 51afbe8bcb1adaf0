/**
 * The AI crawler registry: the ai.robots.txt project's `robots.json` (MIT; an object
 * keyed by user-agent token, each `{operator, respect, function, frequency,
 * description}` in free text with markdown links) read into what robowatch reasons
 * with: a token, its operator, its purposes and whether it says it respects robots.txt.
 * Pure: the same JSON gives the same registry, so a verdict can name the registry it used.
 */

/** What a crawler fetches for. */
export const PURPOSES = ['training', 'search', 'user', 'agent', 'other'] as const;
export type Purpose = (typeof PURPOSES)[number];

/** Each purpose as people read it. */
export const PURPOSE_WORDS: Readonly<Record<Purpose, string>> = {
  training: 'AI training',
  search: 'AI search',
  user: 'AI assistants acting for a user',
  agent: 'AI agents',
  other: 'other AI crawlers',
};

export interface RegistryAgent {
  /** The product token, as the registry spells it (the first spelling of a case variant). */
  readonly token: string;
  /** The registry's name for it, when that is more than the token ("ChatGPT Agent"). */
  readonly name: string;
  /** Who runs it; null when the registry does not know. */
  readonly operator: string | null;
  /** A short lowercase name for presets: `@operator:openai`. Null without an operator. */
  readonly operatorSlug: string | null;
  readonly purposes: readonly Purpose[];
  /** What the registry says of its obeying robots.txt. */
  readonly respectsRobotsTxt: 'yes' | 'no' | 'unknown';
  /** The registry's `function` text, as written (markdown links reduced to their text). */
  readonly function: string;
}

export interface Registry {
  readonly agents: readonly RegistryAgent[];
  /** Entries that could not be read, one line each (the rest is kept). */
  readonly problems: readonly string[];
}

/** Which registry a verdict was made with, so that it can be reproduced. */
export interface RegistryVersion {
  /** SHA-256 of the registry's JSON, as read. */
  readonly sha256: string;
  /** `shipped` (the copy in registry/), or the URL it was refreshed from. */
  readonly source: string;
  /** The shipped copy's date (YYYY-MM-DD), or when it was fetched (ISO 8601). */
  readonly date: string;
  /** Its crawlers, once case variants are merged. */
  readonly agents: number;
}

/** A registry and its version: what the configuration's presets are made from. */
export interface ActiveRegistry {
  readonly registry: Registry;
  readonly version: RegistryVersion;
}

/** A version as one short phrase: "the shipped registry of 2026-08-22 (160 crawlers)". */
export function describeVersion(version: RegistryVersion): string {
  // A file read now has no date of its own worth saying: it is named by its path.
  const what =
    version.source === 'shipped'
      ? `the shipped registry of ${version.date}`
      : /^https?:\/\//i.test(version.source)
        ? `the registry fetched ${version.date.slice(0, 16).replace('T', ' ')} UTC from ${version.source}`
        : `the registry in ${version.source}`;
  return `${what} (${version.agents} crawlers, sha256 ${version.sha256.slice(0, 12)})`;
}

/** The registry's own categories for `function`, and what each means here. */
const CATEGORIES: Readonly<Record<string, readonly Purpose[]>> = {
  'ai assistants': ['user'],
  'ai agents': ['agent'],
  'ai coding agents': ['agent'],
  'undocumented ai agents': ['agent'],
  'ai search crawlers': ['search'],
  'ai data scrapers': ['training'],
  'ai data providers': ['training'],
};

/** Words in free-text `function`s, and the purpose each points to. */
const KEYWORDS: readonly [RegExp, Purpose][] = [
  [/user[- ]initiated|user prompts?|user quer|on behalf of|assistant|answers? for/i, 'user'],
  [/\bagents?\b|takes action/i, 'agent'],
  [/search/i, 'search'],
  [
    /train|\bllms?\b|scrap|dataset|data ?set|machine learning|\bmodels?\b|data is sold|data provider/i,
    'training',
  ],
];

/** Markdown links `[text](url)` reduced to their text. */
function linkText(text: string): string {
  return text.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').trim();
}

/** The purposes a `function` text names; `other` when it names none. */
export function purposesOf(fn: string): Purpose[] {
  const text = linkText(fn);
  const category = CATEGORIES[text.toLowerCase()];
  if (category !== undefined) return [...category];
  const found = KEYWORDS.filter(([pattern]) => pattern.test(text)).map(([, purpose]) => purpose);
  return found.length === 0 ? ['other'] : found;
}

/**
 * An operator's name without its link and commentary: "Amazon, used for …" → "Amazon";
 * a bare URL names its site: "https://safe.search.brave.com/…" → "Brave".
 */
export function operatorOf(text: string): string | null {
  const url = /^https?:\/\/([^/\s]+)/i.exec(linkText(text));
  if (url !== null) {
    const labels = url[1]!.toLowerCase().split('.');
    const site = labels.length >= 2 ? labels[labels.length - 2]! : labels[0]!;
    return site.charAt(0).toUpperCase() + site.slice(1);
  }
  const name = linkText(text)
    .split(/,|\/| that | - | to | \(|\. /)[0]!
    .replace(/^the chinese company /i, '')
    .replace(/\.$/, '')
    .trim();
  return name === '' || /^(unclear at this time|unknown|anyone\b)/i.test(name) ? null : name;
}

function slugOf(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

function respectOf(text: string): RegistryAgent['respectsRobotsTxt'] {
  const said = linkText(text).toLowerCase();
  return said.startsWith('yes') ? 'yes' : said.startsWith('no') ? 'no' : 'unknown';
}

/** Names JavaScript objects have of their own: no crawler's, and unsafe as keys. */
const OBJECT_NAMES = new Set([...Object.getOwnPropertyNames(Object.prototype), 'prototype']);

/**
 * Reads the registry's JSON. Case variants of one token (meta-externalagent and
 * Meta-ExternalAgent), and names that start with the same token, are one crawler to
 * robots.txt: merged, what either knows kept.
 */
export function normaliseRegistry(json: unknown): Registry {
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    return { agents: [], problems: ['the registry is not an object keyed by user-agent token'] };
  const problems: string[] = [];
  const byToken = new Map<string, RegistryAgent>();
  for (const [key, entry] of Object.entries(json as Record<string, unknown>)) {
    // Some entries are a user-agent string ("MistralAI-User/1.0", "ChatGPT Agent"): the
    // token is its first word, as a robots.txt line naming it would start.
    // A crawler's name starts with a letter; "__proto__" or "constructor" name none.
    const word = /^[A-Za-z][A-Za-z0-9_.-]*/.exec(key)?.[0];
    if (word === undefined || OBJECT_NAMES.has(word)) {
      problems.push(`"${key.slice(0, 60)}" does not start with a product token: left out`);
      continue;
    }
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      problems.push(`"${key.slice(0, 60)}" is not described by an object: left out`);
      continue;
    }
    const token = word;
    const fields = entry as Record<string, unknown>;
    const text = (key: string) => (typeof fields[key] === 'string' ? fields[key] : '');
    const operator = operatorOf(text('operator'));
    const agent: RegistryAgent = {
      token,
      name: key,
      operator,
      operatorSlug: operator === null ? null : slugOf(operator),
      purposes: purposesOf(text('function')),
      respectsRobotsTxt: respectOf(text('respect')),
      function: linkText(text('function')),
    };
    const same = token.toLowerCase();
    const known = byToken.get(same);
    byToken.set(same, known === undefined ? agent : merge(known, agent));
  }
  return { agents: [...byToken.values()], problems };
}

/** Two entries of one token: the first spelling, and whatever either knows. */
function merge(a: RegistryAgent, b: RegistryAgent): RegistryAgent {
  const purposes = [...new Set([...a.purposes, ...b.purposes])].filter(
    (p, _, all) => p !== 'other' || all.length === 1,
  );
  return {
    token: a.token,
    name: a.name,
    operator: a.operator ?? b.operator,
    operatorSlug: a.operatorSlug ?? b.operatorSlug,
    purposes,
    respectsRobotsTxt:
      a.respectsRobotsTxt === 'unknown' ? b.respectsRobotsTxt : a.respectsRobotsTxt,
    function: a.function || b.function,
  };
}

/** What changed between two registries: agents added and removed (case-insensitively). */
export function compareRegistries(
  before: Registry,
  after: Registry,
): { added: RegistryAgent[]; removed: RegistryAgent[] } {
  const was = new Set(before.agents.map((a) => a.token.toLowerCase()));
  const is = new Set(after.agents.map((a) => a.token.toLowerCase()));
  return {
    added: after.agents.filter((a) => !was.has(a.token.toLowerCase())),
    removed: before.agents.filter((a) => !is.has(a.token.toLowerCase())),
  };
}

/**
 * The presets a registry gives: `@ai-training`, `@ai-search`, `@ai-user`, `@ai-agent`
 * (agents with that purpose) and `@operator:<name>` (an operator's agents), tokens in the
 * registry's order.
 */
export function registryPresets(registry: Registry): Record<string, string[]> {
  const presets: Record<string, string[]> = {};
  const add = (name: string, token: string) => (presets[name] ??= []).push(token);
  for (const agent of registry.agents) {
    for (const purpose of agent.purposes)
      if (purpose !== 'other') add(`@ai-${purpose}`, agent.token);
    if (agent.operatorSlug !== null && agent.operatorSlug !== '')
      add(`@operator:${agent.operatorSlug}`, agent.token);
  }
  return presets;
}
