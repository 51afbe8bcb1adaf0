/** A change of usage preferences (Content-Usage, Content-Signal) as a cause, in words. */
import { describe, expect, it } from 'vitest';
import { causeTopics, DEFAULT_ALERT_TOPICS } from '../../../src/policy/changes/cause-model.js';
import { causesOfChange } from '../../../src/policy/changes/causes.js';
import { causeHeadline, explainCause } from '../../../src/policy/wording/explain.js';

const side = (body: string) => ({
  fetch: { status: 200, error: null },
  stale: false,
  lastGood: { body: new TextEncoder().encode(body), truncated: false, cut: null },
  verdicts: [],
});
const change = (before: string, after: string, agents = ['Googlebot', 'Bingbot', 'GPTBot']) =>
  causesOfChange({
    profile: 'google',
    agents: agents.map((token) => ({ token, profile: 'google' as const })),
    before: side(before),
    after: side(after),
  });
const context = { agents: ['Googlebot', 'Bingbot', 'GPTBot'], at: new Date(0) };

describe('the preferences cause', () => {
  const cloudflare = (train: string) =>
    `User-agent: *\nContent-Signal: search=yes, ai-train=${train}\nAllow: /\n\nUser-agent: GPTBot\nDisallow: /private/\n`;

  it('says which preference changed, for whom and where, instead of the raw line', () => {
    const causes = change(cloudflare('yes'), cloudflare('no'));
    expect(causes).toEqual([
      {
        type: 'preferences',
        agents: ['Googlebot', 'Bingbot'],
        source: 'content-signal',
        label: 'ai-train',
        before: 'yes',
        after: 'no',
        path: null,
        line: 2,
        pairs: [],
      },
    ]);
    const cause = causes[0]!;
    expect(explainCause(cause, context)).toMatchObject({
      title:
        'Googlebot and Bingbot: ai-train changed from yes to no for the whole site (Content-Signal, line 2)',
      consequence:
        'Crawlers that honour Content-Signal are asked not to train AI models with these pages; it does not change what they may crawl.',
    });
    expect(causeHeadline(cause, context)).toBe(explainCause(cause, context).title);
    // It alerts only where notify.events asks for it.
    expect(causeTopics(cause)).toEqual(['preferences_changed']);
    expect(DEFAULT_ALERT_TOPICS).not.toContain('preferences_changed');
  });

  it('says a Content-Usage rule under a path once, and what the rest of the site keeps', () => {
    const before = 'User-agent: *\nContent-Usage: train-ai=n\n';
    const after = 'User-agent: *\nContent-Usage: train-ai=n\nContent-Usage: /blog/ train-ai=y\n';
    const causes = change(before, after);
    expect(
      causes.map((c) => c.type === 'preferences' && [c.label, c.before, c.after, c.path, c.line]),
    ).toEqual([['train-ai', 'n', 'y', '/blog/', 3]]);
    expect(explainCause(causes[0]!, context).title).toBe(
      'Googlebot, Bingbot and GPTBot: train-ai changed from n to y under /blog/ (Content-Usage, line 3)',
    );
    // Removed: the preference is no longer stated.
    const gone = change(before, 'User-agent: *\nAllow: /\n').find((c) => c.type === 'preferences')!;
    expect(explainCause(gone, context)).toMatchObject({
      title:
        'Googlebot, Bingbot and GPTBot: train-ai changed from n to not stated for the whole site (Content-Usage, line 2)',
      consequence:
        'The file no longer says whether crawlers may train AI models with these pages: crawlers that read Content-Usage treat it as unknown.',
    });
  });

  it('leaves a line that states nothing to the other-lines cause', () => {
    const causes = change(
      'User-agent: *\nAllow: /\n',
      'User-agent: *\nAllow: /\nContent-Usage: Train-AI=n\n',
    );
    expect(causes.map((c) => c.type)).toEqual(['directives']);
  });
});
