/**
 * Where a file's rules and its usage preferences disagree, for the crawlers of the AI
 * registry by purpose: a training crawler kept out of the site while the file says
 * training is welcome (the rules win: it never fetches anything), or let in while the
 * file asks not to train on it, though the crawler only promises to obey robots.txt's
 * rules. The same for search crawlers and `search`. Pure.
 */
import { compileAgent } from '../robots/index.js';
import type { Preferences, RobotsTxt } from '../robots/index.js';
import type { Purpose, Registry, RegistryAgent } from './registry.js';

export interface Contradiction {
  /** The usage line that the rules contradict. */
  readonly line: number;
  readonly message: string;
  /** The crawlers it is about, and which of their purposes. */
  readonly agents: readonly string[];
  readonly purpose: 'training' | 'search';
}

/** The usage labels that speak of each purpose. */
const LABELS: Partial<
  Record<Purpose, { usage: 'train-ai' | 'search'; signal: 'ai-train' | 'search'; words: string }>
> = {
  training: { usage: 'train-ai', signal: 'ai-train', words: 'train AI models' },
  search: { usage: 'search', signal: 'search', words: 'search' },
};

/** What the file states of a purpose for a crawler at the site's root: yes, no or nothing, and the line. */
function stance(
  preferences: Preferences,
  purpose: 'training' | 'search',
): { allows: boolean; line: number } | null {
  const labels = LABELS[purpose]!;
  const usage = preferences.usage[labels.usage];
  if (usage !== undefined)
    return { allows: usage === 'y', line: preferences.usageLines[labels.usage]! };
  const signal = preferences.signals[labels.signal];
  if (signal !== undefined)
    return { allows: signal === 'yes', line: preferences.signalLines[labels.signal]! };
  return null;
}

const list = (tokens: readonly string[]) =>
  tokens.length <= 4
    ? tokens.join(', ')
    : `${tokens.slice(0, 3).join(', ')} and ${tokens.length - 3} more`;

/**
 * The contradictions of a parsed file for the registry's training and search crawlers,
 * crawlers in the same situation said once.
 */
export function findContradictions(robots: RobotsTxt, registry: Registry): Contradiction[] {
  if (robots.usage.rules.length === 0 && robots.usage.signals.length === 0) return [];
  const found = new Map<
    string,
    {
      line: number;
      agents: string[];
      purpose: Contradiction['purpose'];
      message: (n: string) => string;
    }
  >();
  const add = (
    key: string,
    line: number,
    agent: RegistryAgent,
    purpose: Contradiction['purpose'],
    message: (n: string) => string,
  ) => {
    const entry = found.get(key);
    if (entry === undefined) found.set(key, { line, agents: [agent.token], purpose, message });
    else entry.agents.push(agent.token);
  };
  for (const agent of registry.agents) {
    const rules = compileAgent(robots, agent.token);
    const allowed = rules.evaluate('/').allowed;
    const stated = rules.statedPreferences('/');
    for (const purpose of ['training', 'search'] as const) {
      if (!agent.purposes.includes(purpose)) continue;
      const said = stance(stated, purpose);
      if (said === null) continue;
      const words = LABELS[purpose]!.words;
      const what = purpose === 'training' ? 'AI training' : 'AI search';
      if (!allowed && said.allows)
        add(
          `keep-out ${purpose} ${said.line}`,
          said.line,
          agent,
          purpose,
          (names) =>
            `Line ${said.line} welcomes crawlers that ${words}, but ${what} crawlers ${names} may not crawl the site at all: the rules win, so they never fetch a page.`,
        );
      else if (allowed && !said.allows && agent.respectsRobotsTxt === 'yes')
        add(
          `let-in ${purpose} ${said.line}`,
          said.line,
          agent,
          purpose,
          (names) =>
            `Line ${said.line} asks crawlers not to ${words}, yet ${what} crawlers ${names} may crawl the site; they say they obey robots.txt's rules, not that they read this line: disallow them to keep them out.`,
        );
    }
  }
  return [...found.values()]
    .map(({ line, agents, purpose, message }) => ({
      line,
      agents,
      purpose,
      message: message(list(agents)),
    }))
    .sort((a, b) => a.line - b.line);
}
