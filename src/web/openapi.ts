/**
 * The API's description, served at /api/v1/openapi.json: every route with its
 * parameters, its request body's JSON Schema (made by zod from the very schemas the
 * routes validate with) and its answers. A test holds it to the routes the app registers
 * and to the table of docs/api.md.
 */
import { z } from 'zod';
import { channelSettings, presetSchema, siteSchema, siteSettings } from '../config/schema.js';
import { TRIAGE_STATES } from '../monitor/view-overview.js';
import { CRAWLER_VERDICTS } from '../monitor/view-crawlers.js';

/** The body of POST /api/v1/test. */
export const testRequest = z.strictObject({
  robotstxt: z
    .string({ error: 'must be the robots.txt to test, as a string' })
    .max(2_000_000, 'is over 2,000,000 characters'),
  agents: z.array(
    z.union([z.string(), z.strictObject({ token: z.string(), profile: z.string().optional() })]),
    { error: 'must be a list of tokens or {token, profile}' },
  ),
  urls: z.array(z.string(), { error: 'must be a list of URLs' }),
  site: z.number({ error: 'must be a site id' }).int().positive().optional(),
});

/** The body of POST /api/v1/notifications/test. */
export const channelTestRequest = z.strictObject({
  channel: z.string({ error: 'must be a channel id' }).min(1, 'must be a channel id'),
});

interface Parameter {
  readonly name: string;
  readonly in: 'path' | 'query';
  readonly description: string;
  readonly schema?: Record<string, unknown>;
}

interface Operation {
  readonly method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** As OpenAPI writes it: /api/v1/sites/{id}. */
  readonly path: string;
  readonly summary: string;
  readonly query?: readonly (readonly [name: string, description: string])[];
  readonly body?: z.ZodType;
  /** The answers besides the errors, by status. */
  readonly answers: Readonly<Record<number, string>>;
  /** The errors it may answer, by status. */
  readonly errors?: readonly number[];
  /** Whether it changes something (needs web.token, and is refused without one). */
  readonly write?: boolean;
}

const LIST = [
  ['limit', 'how many (1 to 500)'],
  ['before', 'the last id of the previous page (newest first)'],
] as const;

/** Every route of /api/v1. */
export const OPERATIONS: readonly Operation[] = [
  {
    method: 'get',
    path: '/api/v1/sites',
    summary: 'The sites in id order, a page at a time, with where each stands.',
    query: [
      ['q', 'matches origins and names, ignoring case'],
      ['tag', 'only sites with this tag'],
      ['state', `only sites in this state: ${TRIAGE_STATES.join(', ')}`],
      ['limit', 'how many (1 to 500; 100)'],
      ['after', 'the last id of the previous page'],
    ],
    answers: { 200: '{sites, next}: next is the URL of the next page, or null' },
    errors: [400],
  },
  {
    method: 'post',
    path: '/api/v1/sites',
    summary:
      'Adds a site (as the configuration file writes one) and checks it at once: 201 with its baseline.',
    body: siteSchema,
    answers: { 201: 'the site, with `check`: its first check' },
    errors: [400, 409],
    write: true,
  },
  {
    method: 'post',
    path: '/api/v1/sites/bulk',
    summary:
      'Adds many sites: the body is a list (text/plain or text/csv), one origin per line or CSV with origin, name, tags, watches; each line added or refused on its own.',
    answers: { 200: '{added, refused, lines: [{line, origin, outcome, id?, message?}]}' },
    errors: [400],
    write: true,
  },
  {
    method: 'get',
    path: '/api/v1/sites/{id}',
    summary:
      'One site: name, tags, where its settings live, paused, watches, agents, recipients, its current snapshot, and `refused` while robowatch cannot check it (its host is on a private address).',
    answers: { 200: 'the site' },
    errors: [400, 404],
  },
  {
    method: 'patch',
    path: '/api/v1/sites/{id}',
    summary:
      'Edits a site added in the UI or API: each key replaces the site’s, null restores the default.',
    body: siteSettings.partial(),
    answers: { 200: 'the site' },
    errors: [400, 404, 409],
    write: true,
  },
  {
    method: 'delete',
    path: '/api/v1/sites/{id}',
    summary: 'Stops watching a site added in the UI or API; its history stays.',
    answers: { 204: 'removed' },
    errors: [400, 404, 409],
    write: true,
  },
  {
    method: 'post',
    path: '/api/v1/sites/{id}/pause',
    summary: 'Pauses any site: not checked on its schedule, still shown.',
    answers: { 200: 'the site' },
    errors: [400, 404],
    write: true,
  },
  {
    method: 'post',
    path: '/api/v1/sites/{id}/resume',
    summary: 'Resumes a paused site.',
    answers: { 200: 'the site' },
    errors: [400, 404],
    write: true,
  },
  {
    method: 'post',
    path: '/api/v1/sites/{id}/check',
    summary:
      'Checks the site now: `kind` baseline, changed, unchanged, or refused (robowatch did not fetch a private address: `refused` says why, nothing is recorded of the site).',
    answers: { 200: 'the outcome, its change events and causes' },
    errors: [400, 404, 409],
    write: true,
  },
  {
    method: 'get',
    path: '/api/v1/sites/{id}/archive',
    summary:
      'Its history from the Internet Archive: captures read, left out, archived snapshots, first and last capture time, and whether more is loading.',
    answers: { 200: '{captures, skipped, snapshots, first, last, loading}' },
    errors: [400, 404],
  },
  {
    method: 'post',
    path: '/api/v1/sites/{id}/backfill',
    summary:
      'Loads its history before robowatch watched it from the Internet Archive (the daemon does it, spaced as archive.requestsPerMinute asks). Body: {since?, until?: YYYY-MM-DD, every?: change|day|week|month}.',
    answers: { 202: '{captures, skipped, snapshots, first, last, loading}' },
    errors: [400, 404, 409, 503],
    write: true,
  },
  {
    method: 'get',
    path: '/api/v1/sites/{id}/snapshots',
    summary: 'Its snapshots, newest first.',
    query: LIST,
    answers: { 200: '{snapshots, next}' },
    errors: [400, 404],
  },
  {
    method: 'get',
    path: '/api/v1/sites/{id}/coverage',
    summary:
      'Its URL set (from its sitemaps) evaluated for each crawler: counts, deciding rules with their URL counts, prefixes, samples, and the sitemaps read.',
    query: [['snapshot', 'a snapshot id (default: the current one)']],
    answers: {
      200: '{snapshot, urls, computedAt, urlSet, agents: {TOKEN: {allowed, disallowed, access, rules, prefixes, samples}}}',
    },
    errors: [400, 404],
  },
  {
    method: 'get',
    path: '/api/v1/sites/{id}/changes',
    summary: 'Its changes, newest first, each with its causes.',
    query: [['kind', 'status, file, rules or other (repeatable)'], ...LIST],
    answers: { 200: '{changes, next}' },
    errors: [400, 404],
  },
  {
    method: 'get',
    path: '/api/v1/sites/{id}/diff',
    summary:
      "Two snapshots compared: their change events, causes, unified text diff and, when the site reads its sitemaps, each crawler's allowed sitemap URLs in both (coverage: {from, to, sameUrlSet, agents: [{agent, before, after}]}, or null).",
    query: [
      ['from', 'a snapshot id (the one before `to` when left out)'],
      ['to', 'a snapshot id (the latest change when left out)'],
    ],
    answers: { 200: '{site, from, to, events, causes, patch}' },
    errors: [400, 404],
  },
  {
    method: 'get',
    path: '/api/v1/sites/{id}/verdicts',
    summary: 'The verdicts now, with their deciding rules.',
    answers: { 200: '{snapshot, verdicts}' },
    errors: [400, 404],
  },
  {
    method: 'get',
    path: '/api/v1/sites/{id}/verdicts/history',
    summary: 'One watched URL for one crawler through time.',
    query: [
      ['url', 'the watched URL'],
      ['agent', 'the crawler'],
    ],
    answers: { 200: '{url, agent, runs}' },
    errors: [400, 404],
  },
  {
    method: 'get',
    path: '/api/v1/snapshots/{id}',
    summary:
      'One snapshot: fetch details, access, hash, size, redirects, and the AI crawler registry its verdicts were made with (registry: {sha256, source, date, agents} or null).',
    answers: { 200: 'the snapshot' },
    errors: [400, 404],
  },
  {
    method: 'get',
    path: '/api/v1/snapshots/{id}/body',
    summary: 'The file as fetched, as text/plain.',
    answers: { 200: 'the bytes' },
    errors: [400, 404],
  },
  {
    method: 'get',
    path: '/api/v1/snapshots/{id}/model',
    summary: 'The file parsed: groups, rules with lines, sitemaps, other lines, lint findings.',
    answers: { 200: 'the model' },
    errors: [400, 404],
  },
  {
    method: 'get',
    path: '/api/v1/events',
    summary: 'Change events, newest first, by site and type.',
    query: [['site', 'a site id'], ['type', 'event types, separated by commas'], ...LIST],
    answers: { 200: '{events, next}' },
    errors: [400, 404],
  },
  {
    method: 'get',
    path: '/api/v1/crawlers',
    summary:
      'Every crawler watched on some site: on how many sites it is blocked from every, some or no watched URL; and the AI registry’s purposes and operators: on how many sites all their watched crawlers are blocked, some, none.',
    answers: {
      200: '{crawlers: [{agent, blocked, partly, allowed}], groups: [{kind, label, preset, agents, blocked, partly, allowed}]}',
    },
  },
  {
    method: 'get',
    path: '/api/v1/crawlers/{agent}',
    summary: 'One crawler on every watched site, most restrictive first, a page at a time.',
    query: [
      ['verdict', `only sites where it is: ${CRAWLER_VERDICTS.join(', ')}`],
      ['page', 'the page (1 and up)'],
      ['limit', 'sites per page (1 to 500; 100)'],
    ],
    answers: {
      200: '{agent, counts, sites: [{id, origin, name, verdict, disallowed, watched}], total, page, pages}',
    },
    errors: [400],
  },
  {
    method: 'get',
    path: '/api/v1/trends',
    summary:
      'Per month (each site with its state at the month’s end), the share of the sites watching a crawler that block it from every watched URL, from some, from none, or have no robots.txt; by=agent|operator|purpose, since=YYYY-MM, weighted=1 (by rank).',
    answers: {
      200: '{by, trends: [{group, points: [{month, sites, full, partly, none, noRobotsTxt}]}]}',
    },
    errors: [400],
  },
  {
    method: 'get',
    path: '/api/v1/registry',
    summary:
      'The AI crawler registry in use (the presets @ai, @ai-training, @operator:… come from it): its version (sha256, source, date), the URL it is refreshed from, and each crawler with its operator, purposes and whether it says it obeys robots.txt.',
    answers: {
      200: '{version: {sha256, source, date, agents}, url, refresh, agents: [{token, name, operator, preset, purposes, respectsRobotsTxt}]}',
    },
  },
  {
    method: 'get',
    path: '/api/v1/presets',
    summary:
      'The crawler presets: built in, from the configuration file, or made here (source), with the sites added here that name each.',
    answers: { 200: '{presets: [{name, agents, source, overridden, usedBy}]}' },
  },
  {
    method: 'put',
    path: '/api/v1/presets/{name}',
    summary:
      'Makes or replaces a preset made here ("@shop-bots"); the sites that name it watch its crawlers from then on.',
    body: presetSchema,
    answers: { 200: 'the preset' },
    errors: [400, 409],
    write: true,
  },
  {
    method: 'delete',
    path: '/api/v1/presets/{name}',
    summary: 'Deletes a preset made here that no site names.',
    answers: { 204: 'deleted' },
    errors: [404, 409],
    write: true,
  },
  {
    method: 'get',
    path: '/api/v1/notifications/defaults',
    summary:
      'The default recipients and webhooks: the configuration file’s and those added here (webhooks by origin).',
    answers: { 200: '{file: {email, webhooks}, added: {email, webhooks}}' },
  },
  {
    method: 'put',
    path: '/api/v1/notifications/defaults',
    summary:
      'Replaces the default recipients and webhooks added here; every site without its own alerts them, with the file’s.',
    body: channelSettings,
    answers: { 200: '{file, added}' },
    errors: [400],
    write: true,
  },
  {
    method: 'get',
    path: '/api/v1/notifications',
    summary:
      'Where alerts go: the mail server, the channels (default and per site) with their ids, and those failing.',
    answers: { 200: '{email, channels, failing}' },
  },
  {
    method: 'post',
    path: '/api/v1/notifications/test',
    summary: 'Sends a channel’s test notification now: 200 when its receiver accepted it.',
    body: channelTestRequest,
    answers: { 200: '{sent, channel, message}' },
    errors: [400, 404, 502, 503],
    write: true,
  },
  {
    method: 'get',
    path: '/api/v1/digests/preview',
    summary: 'The digests of a period as they would be sent now (not recorded).',
    query: [
      ['since', 'how far back: 7d, 24h…'],
      ['to', 'only this recipient'],
    ],
    answers: { 200: '{digests}' },
    errors: [400],
  },
  {
    method: 'post',
    path: '/api/v1/test',
    summary:
      'Tests a robots.txt: verdicts with deciding rules, next to the live file’s, and what it would newly block or allow among the site’s sitemap URLs.',
    body: testRequest,
    answers: {
      200: '{rows: [{url, agent, proposed, live, changed, preferences?: {preferences, preferenceLines} (the usage preferences the file states for the row; absent without Content-Usage or Content-Signal lines)}], findings, live, site}: site is the file’s effect on every URL of the site’s sitemaps ({urls, effects}), or null',
    },
    errors: [400, 413, 422, 503],
  },
  {
    method: 'get',
    path: '/api/v1/openapi.json',
    summary: 'This document.',
    answers: { 200: 'OpenAPI 3.1' },
  },
];

const ERROR_TEXT: Record<number, string> = {
  400: 'a bad parameter or body',
  401: 'the token is missing or wrong (when web.token is set)',
  403: 'read-only: web.token is not set',
  404: 'no such site, snapshot, channel or preset',
  409: 'the site or preset is the configuration file’s (or built in), or still in use',
  413: 'the file to test is too large',
  422: 'the test is too large or too slow',
  502: 'the channel’s receiver did not accept the test',
  503: 'busy, or this process cannot do it',
};

/** The OpenAPI 3.1 document of /api/v1. */
export function openApiDocument(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) {
    const parameters: Parameter[] = [];
    if (op.path.includes('{id}'))
      parameters.push({
        name: 'id',
        in: 'path',
        description: 'a positive whole number',
        schema: { type: 'integer', minimum: 1, maximum: 2_147_483_647 },
      });
    if (op.path.includes('{agent}'))
      parameters.push({
        name: 'agent',
        in: 'path',
        description: 'a crawler product token as watched (GPTBot, Googlebot, *)',
        schema: { type: 'string' },
      });
    if (op.path.includes('{name}'))
      parameters.push({
        name: 'name',
        in: 'path',
        description: 'a preset’s name, with or without its "@" (@shop-bots)',
        schema: { type: 'string', pattern: '^@?[a-z0-9][a-z0-9-]{0,39}$' },
      });
    for (const [name, description] of op.query ?? [])
      parameters.push({ name, in: 'query', description, schema: { type: 'string' } });
    const responses: Record<string, unknown> = {};
    for (const [status, description] of Object.entries(op.answers))
      responses[status] =
        status === '204'
          ? { description }
          : { description, content: { 'application/json': { schema: { type: 'object' } } } };
    const errors = new Set([...(op.errors ?? []), 401, ...(op.write === true ? [403] : [])]);
    for (const status of [...errors].sort())
      responses[String(status)] = {
        description: ERROR_TEXT[status] ?? 'an error',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      };
    (paths[op.path] ??= {})[op.method] = {
      summary: op.summary,
      ...(parameters.length === 0 ? {} : { parameters }),
      ...(op.body === undefined
        ? {}
        : {
            requestBody: {
              required: true,
              content: {
                'application/json': {
                  schema: z.toJSONSchema(op.body, { io: 'input', unrepresentable: 'any' }),
                },
              },
            },
          }),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'robowatch API',
      version: '1',
      description:
        'Every error is {"error": {"status": <the HTTP status>, "message": "one line saying what is wrong"}}. With web.token set, every request needs Authorization: Bearer <token>.',
    },
    components: {
      securitySchemes: { token: { type: 'http', scheme: 'bearer' } },
      schemas: {
        Error: {
          type: 'object',
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              required: ['status', 'message'],
              properties: { status: { type: 'integer' }, message: { type: 'string' } },
            },
          },
        },
      },
    },
    security: [{ token: [] }, {}],
    paths,
  };
}
