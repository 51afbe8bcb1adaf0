/**
 * What Teams, Discord, Telegram and PagerDuty receive: the same words as the email, in
 * each service's shape and limits; a robots.txt's text stays text (no link, mention or
 * markup of its own); an incident keeps one PagerDuty key through its life.
 */
import { describe, expect, it } from 'vitest';
import type { IncidentPayload } from '../../../src/policy/incident-alerts.js';
import {
  discordBody,
  discordMarkdown,
  incidentEvent,
  pagerDutyBodies,
  teamsBody,
  telegramBody,
} from '../../../src/notify/render-chat.js';
import type { ChatMessage } from '../../../src/notify/render-chat.js';

const hostile: ChatMessage = {
  title: 'Shop (shop.example): not as intended: /pricing is blocked for Googlebot',
  lines: [
    'Shop (shop.example) is not as its owner intends.',
    '',
    '- `/[click](https://evil.example)` is blocked for Googlebot @everyone <script>x</script> & *bold*',
  ],
  link: { href: 'https://rw.example/incidents/3', text: 'Incident #3' },
  tone: 'problem',
};

const payload = (transition: IncidentPayload['incident']['transition']): IncidentPayload => ({
  kind: 'incident',
  site: 'https://shop.example',
  name: 'Shop',
  siteId: 1,
  at: '2026-06-01T12:10:00.000Z',
  incident: {
    id: 3,
    transition,
    openedAt: '2026-06-01T12:10:00.000Z',
    resolvedAt: null,
    state: 'not-as-intended',
    causes: ['Disallow: /pricing (line 3) blocks pages meant to be crawled'],
    violations: [{ url: 'https://shop.example/pricing', agent: 'Googlebot', expected: 'allowed' }],
    violationCount: 1,
    changes: [],
  },
});

describe('Discord', () => {
  it('mentions nobody and writes no link of the file’s, keeping code as code', () => {
    const body = JSON.parse(discordBody(hostile)) as {
      allowed_mentions: { parse: string[] };
      embeds: { title: string; description: string; url: string; color: number }[];
    };
    expect(body.allowed_mentions).toEqual({ parse: [] });
    const [embed] = body.embeds;
    expect(embed!.url).toBe('https://rw.example/incidents/3');
    // In code the text is shown as it is; outside, Markdown is escaped.
    expect(embed!.description).toContain('- `/[click](https://evil.example)` is blocked');
    expect(discordMarkdown('see [x](https://evil) @everyone *b*')).toBe(
      'see \\[x\\](https://evil) \\@everyone \\*b\\*',
    );
  });

  it('keeps within an embed’s 4,096 characters, saying the rest was left out', () => {
    const long = {
      ...hostile,
      lines: Array.from({ length: 500 }, (_, i) => `line ${i} ${'x'.repeat(40)}`),
    };
    const { embeds } = JSON.parse(discordBody(long)) as { embeds: { description: string }[] };
    expect(embeds[0]!.description.length).toBeLessThanOrEqual(4096);
    expect(embeds[0]!.description.endsWith('…')).toBe(true);
  });
});

describe('Telegram', () => {
  it('sends HTML with the file’s text escaped and code as <code>', () => {
    const body = JSON.parse(telegramBody(hostile, '-1001234')) as {
      chat_id: number;
      text: string;
      parse_mode: string;
    };
    expect(body.chat_id).toBe(-1001234);
    expect(body.parse_mode).toBe('HTML');
    expect(body.text.split('\n')[0]).toBe(
      '<b>Shop (shop.example): not as intended: /pricing is blocked for Googlebot</b>',
    );
    expect(body.text).toContain('<code>/[click](https://evil.example)</code>');
    expect(body.text).toContain('&lt;script&gt;x&lt;/script&gt; &amp; *bold*');
    expect(body.text).toContain('<a href="https://rw.example/incidents/3">Incident #3</a>');
    expect(
      (JSON.parse(telegramBody(hostile, '@robowatch_alerts')) as { chat_id: string }).chat_id,
    ).toBe('@robowatch_alerts');
  });
});

describe('Teams', () => {
  it('shows every line as plain text runs, code in a monospace font, and one button', () => {
    const card = (
      JSON.parse(teamsBody(hostile)) as {
        attachments: {
          content: {
            body: { inlines: { text: string; fontType?: string }[] }[];
            actions: { url: string }[];
          };
        }[];
      }
    ).attachments[0]!.content;
    expect(card.body[0]!.inlines[0]!.text).toBe(hostile.title);
    const item = card.body[2]!.inlines;
    expect(item[0]!.text).toBe('• ');
    expect(item[1]).toEqual({
      type: 'TextRun',
      text: '/[click](https://evil.example)',
      fontType: 'Monospace',
    });
    expect(card.actions[0]!.url).toBe('https://rw.example/incidents/3');
  });
});

describe('PagerDuty', () => {
  const key = 'R0UT1NGKEY0123456789abcdefABCDEF';
  it('triggers, acknowledges and resolves an incident with one dedup key', () => {
    const bodies = (['opened', 'worse', 'acknowledged', 'resolved'] as const).map((t) => {
      const p = payload(t);
      return JSON.parse(
        pagerDutyBodies({ ...hostile, page: incidentEvent(p) }, key, {
          base: 'https://rw.example',
          key: 'k',
          test: false,
          at: new Date(p.at),
        })[0]!,
      ) as {
        event_action: string;
        dedup_key: string;
        payload?: { severity: string; source: string };
      };
    });
    expect(bodies.map((b) => b.event_action)).toEqual([
      'trigger',
      'trigger',
      'acknowledge',
      'resolve',
    ]);
    expect(new Set(bodies.map((b) => b.dedup_key))).toEqual(
      new Set(['robowatch:shop.example:incident:3']),
    );
    expect(bodies[0]!.payload).toMatchObject({ severity: 'error', source: 'shop.example' });
    expect(Object.keys(bodies[3]!).sort()).toEqual(['dedup_key', 'event_action', 'routing_key']);
  });

  it('sends a test as a trigger at info and its resolve, so that nobody stays paged', () => {
    const [trigger, resolve] = pagerDutyBodies({ ...hostile, tone: 'info' }, key, {
      base: 'https://rw.example',
      key: 'delivery-1',
      test: true,
      at: new Date(0),
    }).map(
      (b) =>
        JSON.parse(b) as {
          event_action: string;
          dedup_key: string;
          payload?: { severity: string };
        },
    );
    expect(trigger).toMatchObject({ event_action: 'trigger', payload: { severity: 'info' } });
    expect(resolve).toMatchObject({ event_action: 'resolve', dedup_key: trigger!.dedup_key });
  });
});
