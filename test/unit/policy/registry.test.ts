/**
 * The AI crawler registry read into tokens, operators, purposes and robots.txt respect:
 * the snapshot robowatch ships (registry/, 2026-08) and an older one (2026-02), and what
 * changed between them.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  compareRegistries,
  normaliseRegistry,
  operatorOf,
  purposesOf,
  registryPresets,
} from '../../../src/policy/registry.js';
import { readJsonFixture } from '../../support/fixtures.js';

const shipped = JSON.parse(
  readFileSync(new URL('../../../registry/ai-robots.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;
const now = normaliseRegistry(shipped);
const before = normaliseRegistry(readJsonFixture('registry/ai-robots.2026-02.json'));
const byToken = new Map(now.agents.map((a) => [a.token.toLowerCase(), a]));

describe('the registry', () => {
  it('reads every entry of the shipped snapshot, case variants merged', () => {
    expect(Object.keys(shipped)).toHaveLength(166);
    expect(now.problems).toEqual([]);
    // meta-externalagent / Meta-ExternalAgent and two more pairs are one crawler each.
    const lower = new Set(Object.keys(shipped).map((k) => k.toLowerCase()));
    expect(lower.size).toBe(163);
    expect(now.agents.length).toBeLessThanOrEqual(163);
    expect(new Set(now.agents.map((a) => a.token.toLowerCase())).size).toBe(now.agents.length);
    expect(byToken.get('meta-externalagent')).toMatchObject({
      token: 'meta-externalagent',
      operator: 'Meta',
      purposes: ['training'],
      respectsRobotsTxt: 'yes',
    });
  });

  it('knows who runs the well-known crawlers, what for, and whether they say they obey', () => {
    const of = (token: string) => {
      const a = byToken.get(token.toLowerCase())!;
      return [a.operatorSlug, a.purposes, a.respectsRobotsTxt];
    };
    expect(of('GPTBot')).toEqual(['openai', ['training'], 'yes']);
    expect(of('ChatGPT-User')).toEqual(['openai', ['user'], 'yes']);
    expect(of('OAI-SearchBot')).toEqual(['openai', ['search'], 'yes']);
    expect(of('ClaudeBot')).toEqual(['anthropic', ['training'], 'yes']);
    expect(of('PerplexityBot')).toEqual(['perplexity', ['search'], 'yes']);
    expect(of('Perplexity-User')).toEqual(['perplexity', ['user'], 'no']);
    expect(of('Bytespider')).toEqual(['bytedance', ['training'], 'no']);
    expect(of('Google-Extended')).toEqual(['google', ['training'], 'yes']);
    // Every crawler the hand-written @ai list of earlier versions named is still in @ai.
    const before = [
      'GPTBot',
      'ChatGPT-User',
      'OAI-SearchBot',
      'ClaudeBot',
      'Claude-User',
      'Claude-SearchBot',
      'anthropic-ai',
      'CCBot',
      'Google-Extended',
      'PerplexityBot',
      'Perplexity-User',
      'Applebot-Extended',
      'Bytespider',
      'meta-externalagent',
      'Amazonbot',
      'cohere-ai',
    ];
    expect(before.filter((t) => !byToken.has(t.toLowerCase()))).toEqual([]);
    // An operator given as a bare URL is named by its site.
    expect(byToken.get('bravebot')).toMatchObject({ operator: 'Brave', operatorSlug: 'brave' });
    // A user-agent string as a key: its first word is the token robots.txt names.
    expect(byToken.get('chatgpt')).toMatchObject({ name: 'ChatGPT Agent', operatorSlug: 'openai' });
  });

  it('maps the free-text function to purposes', () => {
    expect(purposesOf('AI Assistants')).toEqual(['user']);
    expect(purposesOf('AI Search Crawlers')).toEqual(['search']);
    expect(purposesOf('Scrapes data for search engine and LLMs.')).toEqual(['search', 'training']);
    expect(purposesOf('Retrieves data to provide responses to user-initiated prompts.')).toEqual([
      'user',
    ]);
    expect(purposesOf('Takes action based on user prompts.')).toEqual(['user', 'agent']);
    expect(purposesOf('Unclear at this time.')).toEqual(['other']);
    expect(operatorOf('[OpenAI](https://openai.com)')).toBe('OpenAI');
    expect(operatorOf('Amazon, used for fetching web content to answer user queries')).toBe(
      'Amazon',
    );
    expect(operatorOf('Unclear at this time.')).toBe(null);
  });

  it('gives presets by purpose and by operator', () => {
    const presets = registryPresets(now);
    expect(presets['@operator:openai']).toEqual(
      expect.arrayContaining(['GPTBot', 'ChatGPT-User', 'OAI-SearchBot']),
    );
    expect(presets['@ai-training']).toEqual(
      expect.arrayContaining(['GPTBot', 'ClaudeBot', 'CCBot', 'Google-Extended', 'Bytespider']),
    );
    expect(presets['@ai-training']).not.toContain('ChatGPT-User');
    expect(presets['@ai-search']).toContain('OAI-SearchBot');
    expect(presets['@ai-user']).toContain('ChatGPT-User');
  });

  it('says what an update adds and removes', () => {
    const { added, removed } = compareRegistries(before, now);
    expect(before.agents.length).toBeLessThan(now.agents.length);
    expect(added.length).toBeGreaterThan(30);
    expect(removed.map((a) => a.token)).toEqual(['IbouBot']);
    // Compared case-insensitively: a respelling is not an addition.
    expect(
      added.every(
        (a) => !before.agents.some((b) => b.token.toLowerCase() === a.token.toLowerCase()),
      ),
    ).toBe(true);
  });

  it('keeps what it can of a registry that is not what it should be, and says what', () => {
    expect(normaliseRegistry([1, 2]).problems).toEqual([
      'the registry is not an object keyed by user-agent token',
    ]);
    const odd = normaliseRegistry({ '  ': {}, GoodBot: {}, BadBot: 'not an object' });
    expect(odd.problems).toEqual([
      '"  " does not start with a product token: left out',
      '"BadBot" is not described by an object: left out',
    ]);
    expect(odd.agents).toEqual([
      expect.objectContaining({ token: 'GoodBot', operator: null, purposes: ['other'] }),
    ]);
    // JSON.parse makes "__proto__" a key of its own: it and other object names are no crawler.
    const hostile = normaliseRegistry(
      JSON.parse(
        '{"__proto__": {"operator": "x"}, "": {}, "constructor": {}, "hasOwnProperty": {}, "9bot": {}, "RealBot": {"operator": "Real"}}',
      ),
    );
    expect(hostile.agents.map((a) => a.token)).toEqual(['RealBot']);
    expect(hostile.problems).toHaveLength(5);
  });
});
