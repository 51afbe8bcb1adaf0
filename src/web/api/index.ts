/**
 * The JSON API under /api/v1: the same read models as the pages, documents made by
 * monitor/documents, and changes to the sites. Each part is a Hono app of its own; the
 * description at /api/v1/openapi.json is generated from their routes.
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import type { WebEnv } from '../auth.js';
import { accountsApi } from './accounts.js';
import { crawlersApi } from './crawlers.js';
import { historyApi } from './history.js';
import { intentApi } from './intent.js';
import { alertsApi } from './alerts.js';
import { notificationsApi } from './notifications.js';
import { API } from './route.js';
import type { ApiContext } from './route.js';
import { sitesApi } from './sites.js';
import { testerApi } from './tester.js';

const DESCRIPTION =
  'Every error is {"error": {"status": <the HTTP status>, "message": "one line saying what is wrong"}}. With web.token or users, every request needs Authorization: Bearer <API key or web.token>; each route says the scope it needs in x-robowatch-scope (read, write, admin).';

export function apiApp(context: ApiContext): OpenAPIHono<WebEnv> {
  const api = new OpenAPIHono<WebEnv>();
  for (const part of [
    sitesApi,
    intentApi,
    alertsApi,
    historyApi,
    crawlersApi,
    notificationsApi,
    testerApi,
    accountsApi,
  ])
    api.route('/', part(context));
  api.openAPIRegistry.registerComponent('securitySchemes', 'token', {
    type: 'http',
    scheme: 'bearer',
  });
  const document = api.getOpenAPI31Document({
    openapi: '3.1.0',
    info: { title: 'robowatch API', version: '1', description: DESCRIPTION },
    security: [{ token: [] }, {}],
  });
  // This route describes itself too.
  (document.paths ??= {})[`${API}/openapi.json`] = {
    get: {
      summary: 'This document.',
      responses: {
        200: {
          description: 'OpenAPI 3.1',
          content: { 'application/json': { schema: { type: 'object' } } },
        },
      },
    },
  };
  api.get(`${API}/openapi.json`, (c) => c.json(document));
  return api;
}
