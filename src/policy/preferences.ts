/**
 * Usage preferences (Content-Usage, Content-Signal) as the command line, the API and the
 * pages give them: one flat object of label → value, with the line each came from.
 */
import { compileAgent } from '../robots/index.js';
import type { AgentRules, Preferences } from '../robots/index.js';
import { ParseCache } from './verdicts.js';
import type { WatchedAgent } from './verdicts.js';

/** `{"train-ai": "n", "search": "y", "ai-train": "no"}` and their lines; null: nothing applies. */
export interface PreferencesDocument {
  readonly preferences: Readonly<Record<string, string>> | null;
  readonly preferenceLines: Readonly<Record<string, number>>;
}

/**
 * A URL's preferences for a crawler as one object: AIPREF's labels (`train-ai`, `search`:
 * `y`/`n`) and Content-Signal's (`search`, `ai-input`, `ai-train`: `yes`/`no`); where
 * both name `search`, Content-Usage's is `search` and Content-Signal's `signal:search`.
 * Null when the crawler may not fetch the URL (no preference applies to it).
 */
export function preferencesDocument(preferences: Preferences | null): PreferencesDocument {
  if (preferences === null) return { preferences: null, preferenceLines: {} };
  const values: Record<string, string> = {};
  const lines: Record<string, number> = {};
  for (const [label, value] of Object.entries(preferences.usage)) {
    values[label] = value;
    const line = preferences.usageLines[label as keyof typeof preferences.usageLines];
    if (line !== undefined) lines[label] = line;
  }
  for (const [key, value] of Object.entries(preferences.signals)) {
    const label = key in values ? `signal:${key}` : key;
    values[label] = value;
    const line = preferences.signalLines[key as keyof typeof preferences.signalLines];
    if (line !== undefined) lines[label] = line;
  }
  return { preferences: values, preferenceLines: lines };
}

/** The preferences in a few words: "train-ai=n (line 4), ai-train=no (line 2)"; '' for none. */
export function preferencesText(document: PreferencesDocument): string {
  if (document.preferences === null) return '';
  return Object.entries(document.preferences)
    .map(([label, value]) => {
      const line = document.preferenceLines[label];
      return `${label}=${value}${line === undefined ? '' : ` (line ${line})`}`;
    })
    .join(', ');
}

/**
 * The preferences a file states for each (URL, crawler) the crawler may fetch, keyed
 * "URL\ncrawler"; empty when the file has no Content-Usage or Content-Signal line (the
 * usual case: nothing to show).
 */
export function preferencesOf(
  body: Uint8Array,
  cells: readonly { readonly url: string; readonly agent: WatchedAgent }[],
  cache = new ParseCache(),
): Map<string, PreferencesDocument> {
  const out = new Map<string, PreferencesDocument>();
  const compiled = new Map<string, AgentRules | null>();
  for (const { url, agent } of cells) {
    const key = `${agent.profile}\n${agent.token}`;
    let rules = compiled.get(key);
    if (rules === undefined) {
      const parsed = cache.parse(body, agent.profile);
      const any = parsed.usage.rules.length > 0 || parsed.usage.signals.length > 0;
      rules = any ? compileAgent(parsed, agent.token) : null;
      compiled.set(key, rules);
    }
    if (rules !== null)
      out.set(`${url}\n${agent.token}`, preferencesDocument(rules.preferences(url)));
  }
  return out;
}
