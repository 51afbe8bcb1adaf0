/** Rules and usage preferences that disagree, for the registry's AI crawlers by purpose. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findContradictions } from '../../../src/policy/contradictions.js';
import { normaliseRegistry } from '../../../src/policy/registry.js';
import { parseRobotsTxt } from '../../../src/robots/index.js';

const registry = normaliseRegistry(
  JSON.parse(readFileSync(new URL('../../../registry/ai-robots.json', import.meta.url), 'utf8')),
);
const contradictions = (text: string) => findContradictions(parseRobotsTxt(text), registry);

describe('contradictions', () => {
  it('finds training crawlers let in while the file asks not to train, if they say they obey', () => {
    const [found, ...rest] = contradictions(
      'User-agent: *\nContent-Signal: search=yes, ai-train=no\nAllow: /\n\nUser-agent: GPTBot\nDisallow: /\n',
    );
    expect(rest).toEqual([]);
    expect(found!.line).toBe(2);
    // GPTBot is kept out by its own group; Bytespider says it does not obey robots.txt.
    expect(found!.agents).toContain('ClaudeBot');
    expect(found!.agents).not.toContain('GPTBot');
    expect(found!.agents).not.toContain('Bytespider');
    expect(found!.message).toMatch(
      /^Line 2 asks crawlers not to train AI models, yet AI training crawlers \S+, \S+, \S+ and \d+ more may crawl the site; they say they obey robots.txt's rules, not that they read this line: disallow them to keep them out\.$/,
    );
  });

  it('finds crawlers kept out while the file welcomes what they do', () => {
    expect(contradictions('User-agent: GPTBot\nDisallow: /\nContent-Usage: train-ai=y\n')).toEqual([
      {
        line: 3,
        agents: ['GPTBot'],
        purpose: 'training',
        message:
          'Line 3 welcomes crawlers that train AI models, but AI training crawlers GPTBot may not crawl the site at all: the rules win, so they never fetch a page.',
      },
    ]);
  });

  it('finds nothing where the rules and the preferences agree, or where nothing is stated', () => {
    expect(contradictions('User-agent: *\nDisallow: /\nContent-Signal: ai-train=no\n')).toEqual([]);
    expect(contradictions('User-agent: *\nAllow: /\n')).toEqual([]);
    expect(
      contradictions('User-agent: *\nAllow: /\nContent-Usage: train-ai=y, search=y\n'),
    ).toEqual([]);
  });
});
