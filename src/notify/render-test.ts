/** The test notification of a channel: what it is for, and that nothing changed. */
import type { WebhookFormat } from '../policy/alerts.js';
import type { TestPayload } from '../policy/alerts.js';
import type { RenderContext, RenderedEmail } from './render-alert.js';
import { slackEscape } from './render-alert.js';

function whose(payload: TestPayload): string {
  return payload.site === null
    ? 'robowatch alerts for sites without recipients of their own'
    : `robowatch alerts for ${payload.site}`;
}

/** The sentence every test message says, in its channel's form. */
export function testMessage(payload: TestPayload): string {
  return `This is a test: ${whose(payload)} reach you here. No robots.txt changed.`;
}

export function renderTestEmail(payload: TestPayload, context: RenderContext): RenderedEmail {
  const link = context.links.overview();
  const subject = 'robowatch: test notification';
  const text = `${testMessage(payload)}\n\nThe sites: ${link}\n`;
  const escape = (s: string) =>
    s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  const html = `<!doctype html><html><body><p>${escape(testMessage(payload))}</p><p><a href="${escape(link)}">The sites</a></p></body></html>`;
  return { subject, text, html };
}

/** A webhook's test body: `{"type": "test", …}`, or for Slack a `text`. */
export function renderTestWebhookBody(
  payload: TestPayload,
  format: WebhookFormat,
  delivery: { readonly key: string; readonly createdAt: Date },
  context: RenderContext,
): string {
  if (format === 'slack')
    return JSON.stringify({
      text: `*robowatch: test notification*\n${slackEscape(testMessage(payload))}\n<${context.links.overview()}|The sites>`,
    });
  return JSON.stringify({
    type: 'test',
    delivery: delivery.key,
    createdAt: delivery.createdAt.toISOString(),
    site: payload.site,
    message: testMessage(payload),
    links: { overview: context.links.overview() },
  });
}
