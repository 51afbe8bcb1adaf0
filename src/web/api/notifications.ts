/**
 * Notifications under /api/v1: where alerts go and whether they get there, a channel's
 * test, the default recipients, and the digests as they would be sent now.
 */
import { HTTPException } from 'hono/http-exception';
import { z } from 'zod';
import { channelSettings } from '../../config/schema.js';
import {
  ChannelTestDocument,
  ChannelTestRequest,
  DefaultsDocument,
  DigestPreviewDocument,
  DigestSendRequest,
  DigestSentDocument,
  NotificationsDocument,
  channelDocument,
  defaultsDocument,
  failingDocument,
} from '../../monitor/documents/index.js';
import {
  digestWindow,
  notificationsNow,
  sendChannelTest,
  sendDigestsNow,
} from '../notifications.js';
import {
  API,
  answer,
  apiPart,
  catalogChange,
  errors,
  jsonBody,
  parseBody,
  query,
  readJson,
  route,
} from './route.js';
import type { ApiContext } from './route.js';
import { actorOf, audited } from '../audit.js';

export function notificationsApi({ deps, sites }: ApiContext) {
  const app = apiPart();

  // Where alerts go, and whether they get there.
  app.openapi(
    route({
      method: 'get',
      path: `${API}/notifications`,
      summary:
        'Where alerts go: the mail server, the channels (default and per site) with their ids, and those failing.',
      responses: {
        200: answer('the mail server, the channels, those failing', NotificationsDocument),
        ...errors([]),
      },
    }),
    async (c) => {
      const view = await notificationsNow(c, deps, sites);
      return c.json(
        {
          email: view.email,
          channels: view.channels.map(channelDocument),
          failing: view.failing.map(failingDocument),
        },
        200,
      );
    },
  );

  app.openapi(
    route({
      method: 'post',
      path: `${API}/notifications/test`,
      summary: 'Sends a channel’s test notification now: 200 when its receiver accepted it.',
      request: { body: jsonBody(ChannelTestRequest) },
      responses: {
        200: answer('sent, and what the receiver said', ChannelTestDocument),
        ...errors([400, 404, 502, 503], true),
      },
    }),
    async (c) => {
      const body = await readJson(c, '{"channel": "<id from GET /api/v1/notifications>"}');
      const { channel } = parseBody(ChannelTestRequest, body);
      const result = await sendChannelTest(c, deps, sites, channel);
      if (!result.sent) throw new HTTPException(502, { message: result.message });
      return c.json(
        { sent: true as const, channel: channelDocument(result.channel), message: result.message },
        200,
      );
    },
  );

  // The default recipients and webhooks: the file's (read-only) and those added here.
  const defaults = () => {
    const { file, added } = deps.catalog.defaultChannels();
    return defaultsDocument(file, added);
  };
  app.openapi(
    route({
      method: 'get',
      path: `${API}/notifications/defaults`,
      summary:
        'The default recipients and webhooks: the configuration file’s and those added here (webhooks by origin).',
      responses: { 200: answer('the defaults', DefaultsDocument), ...errors([]) },
    }),
    (c) => c.json(defaults(), 200),
  );
  app.openapi(
    route({
      method: 'put',
      path: `${API}/notifications/defaults`,
      summary:
        'Replaces the default recipients and webhooks added here; every site without its own alerts them, with the file’s.',
      request: { body: jsonBody(channelSettings) },
      responses: { 200: answer('the defaults', DefaultsDocument), ...errors([400], true) },
    }),
    async (c) => {
      const body = await readJson(
        c,
        '{"email": [...], "webhooks": [{"url", "secret"?, "format"?}]}',
      );
      const before = deps.catalog.defaultChannels();
      await catalogChange(() => deps.catalog.setDefaultChannels(body));
      await audited(deps, actorOf(c), {
        action: 'recipients.set',
        target: 'default recipients',
        before: before.added,
        after: deps.catalog.defaultChannels().added,
      });
      deps.logger.info({}, 'default recipients saved from the API');
      return c.json(defaults(), 200);
    },
  );

  // The digests of the last `since` as they would be sent now: `robowatch digest --print`
  // beside a daemon that holds the embedded database asks for them here.
  app.openapi(
    route({
      method: 'get',
      path: `${API}/digests/preview`,
      summary: 'The digests of a period as they would be sent now (not recorded).',
      request: {
        query: z.object({
          since: query('how far back: 7d, 24h…'),
          to: query('only this recipient'),
        }),
      },
      responses: { 200: answer('the digests', DigestPreviewDocument), ...errors([400]) },
    }),
    async (c) => {
      const { start, end: now } = digestWindow(deps, c.req.query('since'));
      const digests = await deps.previewDigests(
        { start, end: now },
        c.req.query('to'),
        sites.filter(c),
      );
      return c.json(
        {
          period: { start, end: now },
          digests: digests.map((d) => ({
            recipient: d.recipient,
            subject: d.rendered.subject,
            text: d.rendered.text,
          })),
        },
        200,
      );
    },
  );

  app.openapi(
    route({
      method: 'post',
      path: `${API}/digests/send`,
      summary:
        'Records the digests of the last `since` (default 7d), each recipient’s or one’s (`to`), and sends them now; a period is sent to a recipient once.',
      request: { body: jsonBody(DigestSendRequest) },
      responses: {
        200: answer('each recipient’s digest: queued, or sent before', DigestSentDocument),
        ...errors([400, 404, 503], true),
      },
    }),
    async (c) => {
      // No body: every recipient's digest of the last 7 days.
      const body = parseBody(
        DigestSendRequest,
        await readJson(c, '{"to"?: "<recipient>", "since"?: "7d"}', { empty: {} }),
      );
      const period = digestWindow(deps, body.since);
      const sent = await sendDigestsNow(deps, period, body.to);
      return c.json({ period, digests: sent.map((d) => ({ ...d, queued: d.id !== null })) }, 200);
    },
  );

  return app;
}
