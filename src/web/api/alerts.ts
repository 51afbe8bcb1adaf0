/** /api/v1/alerts: the alert log, every notification with its deliveries per channel. */
import { z } from 'zod';
import { AlertDocument, AlertListDocument, alertDocument } from '../../monitor/documents/index.js';
import { logFilters, readAlert, readAlertLog } from '../alert-log.js';
import { optionalId, parseId } from '../sites.js';
import { API, ID, answer, apiPart, errors, limitOf, query, route } from './route.js';
import type { ApiContext } from './route.js';

export function alertsApi({ deps, sites }: ApiContext) {
  const app = apiPart();

  app.openapi(
    route({
      method: 'get',
      path: `${API}/alerts`,
      summary:
        'The alert log, newest first: every alert, incident alert and digest, with its deliveries per channel (queued, sent, failed with the receiver’s error), attempts and next attempt.',
      request: {
        query: z.object({
          site: query('only this site’s (its id)'),
          channel: query('email or webhook'),
          state: query('only those with a delivery queued, sent or failed'),
          limit: query('how many (1 to 500; 50)'),
          before: query('the last id of the previous page'),
        }),
      },
      responses: { 200: answer('the alerts', AlertListDocument), ...errors([400]) },
    }),
    async (c) => {
      const siteId = optionalId(c.req.query('site'), 'site');
      const before = optionalId(c.req.query('before'), 'before');
      const filters = logFilters(c.req.query('channel'), c.req.query('state'));
      const limit = limitOf(c, 50);
      const log = await readAlertLog(deps, {
        ...(siteId === undefined ? {} : { siteId }),
        ...(await sites.only(c)),
        ...(before === undefined ? {} : { before }),
        ...filters,
        limit: limit + 1,
      });
      const page = log.slice(0, limit);
      const params = new URLSearchParams({
        ...(siteId === undefined ? {} : { site: String(siteId) }),
        ...(filters.channel === undefined ? {} : { channel: filters.channel }),
        ...(filters.state === undefined ? {} : { state: filters.state }),
        limit: String(limit),
      });
      const last = page[page.length - 1];
      if (last !== undefined) params.set('before', String(last.entry.id));
      return c.json(
        {
          alerts: page.map((l) => alertDocument(l.entry, l.subject)),
          next: log.length > limit ? `${API}/alerts?${params.toString()}` : null,
        },
        200,
      );
    },
  );

  app.openapi(
    route({
      method: 'get',
      path: `${API}/alerts/{id}`,
      summary:
        'One alert, with exactly what each delivery sent: the email as rendered (text and HTML), the webhook’s or Slack’s body.',
      request: { params: ID },
      responses: { 200: answer('the alert', AlertDocument), ...errors([400, 404]) },
    }),
    async (c) => {
      const one = await readAlert(deps, parseId(c.req.param('id'), 'alert'), (id) =>
        sites.sees(c, id),
      );
      return c.json(alertDocument(one.entry, one.subject, one.contents), 200);
    },
  );

  return app;
}
