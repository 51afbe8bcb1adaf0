/**
 * Loopback stand-ins for the services robowatch pages and chats in, each checking what it
 * receives against the shape and limits its documentation gives, and answering as the
 * service does: PagerDuty's Events API v2 (`POST /v2/enqueue`, 202), a Microsoft Teams
 * incoming webhook or Workflows trigger (an Adaptive Card message, 202), a Discord
 * webhook (`POST /api/webhooks/ID/TOKEN`, 204) and Telegram's Bot API
 * (`POST /botTOKEN/sendMessage`, 200 `{ok: true}`). A payload the service would refuse
 * is answered as the service refuses it (400, with its error), and recorded as refused.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';

// https://developer.pagerduty.com/docs/events-API-v2/02-Trigger-Events.md
const pagerDutyEvent = z.union([
  z.strictObject({
    routing_key: z.string().length(32),
    event_action: z.literal('trigger'),
    dedup_key: z.string().min(1).max(255),
    payload: z.strictObject({
      summary: z.string().min(1).max(1024),
      source: z.string().min(1),
      severity: z.enum(['critical', 'error', 'warning', 'info']),
      timestamp: z.iso.datetime().optional(),
      component: z.string().optional(),
      group: z.string().optional(),
      class: z.string().optional(),
      custom_details: z.record(z.string(), z.unknown()).optional(),
    }),
    links: z.array(z.strictObject({ href: z.url(), text: z.string().optional() })).optional(),
    images: z.array(z.unknown()).optional(),
    client: z.string().optional(),
    client_url: z.url().optional(),
  }),
  z.strictObject({
    routing_key: z.string().length(32),
    event_action: z.enum(['acknowledge', 'resolve']),
    dedup_key: z.string().min(1).max(255),
  }),
]);

// Adaptive Cards 1.4 (https://adaptivecards.io/explorer/), as Teams takes them in a message.
const textRun = z.strictObject({
  type: z.literal('TextRun'),
  text: z.string(),
  weight: z.enum(['Default', 'Lighter', 'Bolder']).optional(),
  size: z.enum(['Default', 'Small', 'Medium', 'Large', 'ExtraLarge']).optional(),
  color: z.enum(['Default', 'Dark', 'Light', 'Accent', 'Good', 'Warning', 'Attention']).optional(),
  fontType: z.enum(['Default', 'Monospace']).optional(),
});
const cardElement = z.union([
  z.strictObject({
    type: z.literal('RichTextBlock'),
    inlines: z.array(textRun).min(1),
    spacing: z.enum(['None', 'Small', 'Default', 'Medium', 'Large']).optional(),
  }),
  z.strictObject({ type: z.literal('TextBlock'), text: z.string(), wrap: z.boolean().optional() }),
]);
const teamsMessage = z.strictObject({
  type: z.literal('message'),
  attachments: z
    .array(
      z.strictObject({
        contentType: z.literal('application/vnd.microsoft.card.adaptive'),
        contentUrl: z.null().optional(),
        content: z.strictObject({
          $schema: z.literal('http://adaptivecards.io/schemas/adaptive-card.json'),
          type: z.literal('AdaptiveCard'),
          version: z.string().regex(/^1\.[0-5]$/),
          body: z.array(cardElement).min(1),
          actions: z
            .array(
              z.strictObject({
                type: z.literal('Action.OpenUrl'),
                title: z.string(),
                url: z.url(),
              }),
            )
            .optional(),
        }),
      }),
    )
    .length(1),
});

// https://discord.com/developers/docs/resources/webhook#execute-webhook and embed limits.
const discordMessage = z
  .strictObject({
    content: z.string().max(2000).optional(),
    username: z.string().min(1).max(80).optional(),
    allowed_mentions: z.strictObject({ parse: z.array(z.enum(['roles', 'users', 'everyone'])) }),
    embeds: z
      .array(
        z.strictObject({
          title: z.string().max(256).optional(),
          description: z.string().max(4096).optional(),
          url: z.url().optional(),
          color: z.number().int().min(0).max(0xffffff).optional(),
        }),
      )
      .max(10),
  })
  .refine(
    (m) =>
      m.embeds.reduce((n, e) => n + (e.title?.length ?? 0) + (e.description?.length ?? 0), 0) <=
      6000,
    'the embeds hold more than 6000 characters',
  );

// https://core.telegram.org/bots/api#sendmessage and #html-style.
const TELEGRAM_TAGS =
  /^<\/?(b|strong|i|em|u|ins|s|strike|del|code|pre|blockquote|a(\s+href="[^"]*")?)>$/;
const telegramMessage = z
  .strictObject({
    chat_id: z.union([z.number().int(), z.string().regex(/^@\w+$/)]),
    text: z.string().min(1),
    parse_mode: z.literal('HTML'),
    link_preview_options: z.strictObject({ is_disabled: z.boolean() }).optional(),
  })
  .superRefine((m, ctx) => {
    for (const tag of m.text.match(/<[^>]*>/g) ?? [])
      if (!TELEGRAM_TAGS.test(tag))
        ctx.addIssue({ code: 'custom', message: `can't parse entities: unsupported tag ${tag}` });
    if (/&(?!(lt|gt|amp|quot);)/.test(m.text))
      ctx.addIssue({ code: 'custom', message: "can't parse entities: unescaped &" });
    const shown = m.text.replace(/<[^>]+>/g, '').replace(/&(lt|gt|amp|quot);/g, 'x');
    if (shown.length > 4096) ctx.addIssue({ code: 'custom', message: 'message is too long' });
  });

export type Service = 'pagerduty' | 'teams' | 'discord' | 'telegram';

export interface ServiceRequest {
  readonly service: Service;
  readonly path: string;
  /** The body as parsed JSON. */
  readonly json: unknown;
  /** Why the service would refuse it; null when it takes it. */
  readonly refused: string | null;
}

/** The four services on one loopback port, told apart by path. */
export class ServiceReceivers {
  readonly received: ServiceRequest[] = [];
  #server: Server | undefined;
  url = '';

  /** What each service received and took, in order. */
  of(service: Service): unknown[] {
    return this.received.filter((r) => r.service === service).map((r) => r.json);
  }

  async start(): Promise<this> {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '';
        const service: Service | undefined =
          path === '/v2/enqueue'
            ? 'pagerduty'
            : path.startsWith('/teams/')
              ? 'teams'
              : path.startsWith('/api/webhooks/')
                ? 'discord'
                : /^\/bot[^/]+\/sendMessage$/.test(path)
                  ? 'telegram'
                  : undefined;
        if (service === undefined || req.method !== 'POST') {
          res.writeHead(404).end();
          return;
        }
        let json: unknown;
        try {
          json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          json = undefined;
        }
        const schema = {
          pagerduty: pagerDutyEvent,
          teams: teamsMessage,
          discord: discordMessage,
          telegram: telegramMessage,
        }[service];
        const checked = schema.safeParse(json);
        const refused = checked.success
          ? Buffer.concat(chunks).length > (service === 'teams' ? 28_000 : 512_000)
            ? 'payload too large'
            : null
          : checked.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
        this.received.push({ service, path, json, refused });
        const answer = (status: number, body?: unknown) =>
          res
            .writeHead(status, body === undefined ? {} : { 'content-type': 'application/json' })
            .end(body === undefined ? undefined : JSON.stringify(body));
        if (refused !== null) {
          if (service === 'telegram')
            answer(400, { ok: false, error_code: 400, description: `Bad Request: ${refused}` });
          else if (service === 'pagerduty')
            answer(400, {
              status: 'invalid event',
              message: 'Event object is invalid',
              errors: [refused],
            });
          else answer(400, { message: refused });
          return;
        }
        if (service === 'pagerduty') {
          const event = json as { dedup_key: string };
          answer(202, {
            status: 'success',
            message: 'Event processed',
            dedup_key: event.dedup_key,
          });
        } else if (service === 'telegram')
          answer(200, {
            ok: true,
            result: { message_id: this.received.length, date: 0, chat: {} },
          });
        else if (service === 'discord') answer(204);
        else answer(202);
      });
    });
    await new Promise<void>((resolve) => this.#server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) =>
      this.#server ? this.#server.close(() => resolve()) : resolve(),
    );
  }
}
