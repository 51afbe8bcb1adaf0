/**
 * The crawlers page names `*` for what it is: any crawler without a group of its own, not
 * a crawler called "*".
 */
import { describe, expect, it } from 'vitest';
import { jsx } from 'hono/jsx';
import { ClockContext } from '../../../src/web/pages/components.js';
import { CrawlersPageView } from '../../../src/web/pages/crawlers.js';

describe('the crawlers page', () => {
  it('says what the `*` row stands for, and no other row', async () => {
    const html = String(
      await jsx(
        ClockContext.Provider,
        { value: { timeZone: 'UTC', now: new Date('2026-06-01T12:00:00Z') } },
        jsx(CrawlersPageView, {
          crawlers: [
            { agent: 'GPTBot', blocked: 2, partly: 1, allowed: 1 },
            { agent: '*', blocked: 0, partly: 3, allowed: 1 },
          ],
          groups: [],
          registry: { version: 'the shipped registry', url: null },
          presets: [],
          defaults: 'GPTBot, *',
          signedIn: true,
          canEdit: false,
          file: 'robowatch.yaml',
        }),
      ).toString(),
    );
    const rows = [...html.matchAll(/<tr><td>(.*?)<\/td>/g)].map((m) =>
      m[1]!.replace(/<[^>]+>/g, ''),
    );
    expect(rows).toEqual(['GPTBot', '* (any crawler without a group of its own)']);
  });
});
