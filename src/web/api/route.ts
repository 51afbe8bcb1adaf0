/**
 * What every route of /api/v1 is made with: its description (parameters, request body,
 * answers as document schemas, the errors it may answer), and the small readers of a
 * request that answer a bad one with a 400 that names what is wrong.
 *
 * Parameters are declared for the description only: each route reads and checks its own,
 * so that a bad one gets the one line it always got. Request bodies likewise: each is
 * described by the JSON Schema of the very zod schema the route validates with.
 */
import { OpenAPIHono, createRoute } from '@hono/zod-openapi';
import type { RouteConfig } from '@hono/zod-openapi';
import type { Context, TypedResponse } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { z } from 'zod';
import { findUnstorableText } from '../../config/text.js';
import { ErrorDocument } from '../../monitor/documents/index.js';
import { SiteChangeRefused } from '../../monitor/sites/entries.js';
import type { WebEnv } from '../auth.js';
import type { WebDeps } from '../deps.js';
import { MAX_ID, refusalStatus } from '../sites.js';
import type { ConfiguredSites } from '../sites.js';
import type { TesterThread } from '../../monitor/threads/tester-thread.js';
import { requiredScope } from '../scopes.js';

/** What the API's routes are built from. */
export interface ApiContext {
  readonly deps: WebDeps;
  readonly sites: ConfiguredSites;
  readonly tester: TesterThread;
}

export const API = '/api/v1';

/** A part of the API: its routes, each with its description. */
export const apiPart = () => new OpenAPIHono<WebEnv>();

const MAX_LIMIT = 500;

const ERROR_TEXT: Record<number, string> = {
  400: 'a bad parameter or body',
  401: 'no credentials, or a token or API key that is wrong, expired or revoked',
  403: 'the key or user lacks the scope this needs (or: read-only, with neither web.token nor users)',
  404: 'no such site, snapshot, channel or preset',
  409: 'the site or preset is the configuration file’s (or built in), or still in use',
  413: 'the file to test is too large',
  422: 'the test is too large or too slow',
  502: 'the channel’s receiver did not accept the test',
  503: 'busy, or this process cannot do it',
};

type Status = keyof typeof ERROR_TEXT;

/** A query parameter: any text, which the route reads and checks itself. */
export const query = (description: string) => z.string().optional().meta({ description });

/** A query parameter the route needs: documented as required, refused by the route in its words. */
export const needed = (description: string) =>
  z
    .string()
    .optional()
    .meta({ description, param: { required: true } });

/** A query parameter that may be repeated (`?kind=a&kind=b`) or list values with commas. */
export const repeatable = (description: string) =>
  z
    .union([z.string(), z.array(z.string())])
    .optional()
    .meta({ description });

/** The paging parameters of a list, newest first. */
export const LIST = {
  limit: query('how many (1 to 500)'),
  before: query('the last id of the previous page (newest first)'),
};

/** `{id}`: a site's or snapshot's id. */
export const ID = z.object({
  id: z.string().meta({
    param: { name: 'id', in: 'path' },
    description: 'a positive whole number',
    type: 'integer',
    minimum: 1,
    maximum: MAX_ID,
  }),
});

export const AGENT = z.object({
  agent: z.string().meta({
    param: { name: 'agent', in: 'path' },
    description: 'a crawler product token as watched (GPTBot, Googlebot, *)',
  }),
});

export const PRESET_NAME = z.object({
  name: z.string().meta({
    param: { name: 'name', in: 'path' },
    description: 'a preset’s name, with or without its "@" (@shop-bots)',
    pattern: '^@?[a-z0-9][a-z0-9-]{0,39}$',
  }),
});

/** A JSON answer of this document. */
export const answer = <S extends z.ZodType>(description: string, schema: S) => ({
  description,
  content: { 'application/json': { schema } },
});

/** The errors a route may answer; 401 for every route, 403 for those that change things. */
export function errors(statuses: readonly Status[], write = false) {
  const all = [...new Set([...statuses, 401, ...(write ? [403] : [])])].sort();
  return Object.fromEntries(
    all.map((status) => [status, answer(ERROR_TEXT[status] ?? 'an error', ErrorDocument)]),
  );
}

/** A request body described by the JSON Schema of the zod schema the route validates with. */
export const jsonBody = (schema: z.ZodType) => ({
  required: true,
  content: {
    'application/json': {
      schema: z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<
        string,
        unknown
      >,
    },
  },
});

/** A route's description; its path as OpenAPI writes it, under /api/v1. */
export const route = <R extends RouteConfig>(config: R) =>
  createRoute({
    ...config,
    // The scope it needs, from the one table every route and form is checked against.
    'x-robowatch-scope':
      requiredScope(config.method.toUpperCase(), config.path.replace(/\{[^}]+\}/g, '1')) ?? 'none',
  });

/**
 * A request's JSON body, or a 400 that says what it should be; `empty`, when given, is
 * the body of a request that sends none (or only blanks). Unless the route keeps none of
 * it (`stored: false`: the tester evaluates a file and forgets it), a string the database
 * cannot keep (a NUL, half a surrogate pair) is refused here, named by its path, for every
 * route at once: a new field cannot reach the store unchecked.
 */
export async function readJson(
  c: Context,
  shape: string,
  { stored = true, empty }: { readonly stored?: boolean; readonly empty?: unknown } = {},
): Promise<unknown> {
  let body: unknown;
  try {
    const text = await c.req.text();
    body = empty !== undefined && text.trim() === '' ? empty : JSON.parse(text);
  } catch {
    throw new HTTPException(400, { message: `the body must be JSON: ${shape}` });
  }
  const problem = stored ? findUnstorableText(body) : undefined;
  if (problem !== undefined) throw new HTTPException(400, { message: problem });
  return body;
}

/** A body checked against a zod schema: the first problem, named by its path, is the 400. */
export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new HTTPException(400, { message: `${issue.path.join('.') || 'body'}: ${issue.message}` });
}

/** Runs a change of the sites; a refusal becomes its HTTP error, with its one line. */
export async function catalogChange<T>(change: () => Promise<T>): Promise<T> {
  try {
    return await change();
  } catch (error) {
    if (error instanceof SiteChangeRefused)
      throw new HTTPException(refusalStatus(error), { message: error.message });
    throw error;
  }
}

/** `?limit=`: 1 to 500, or the route's default. */
export function limitOf(c: Context, fallback: number): number {
  const raw = c.req.query('limit');
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > MAX_LIMIT)
    throw new HTTPException(400, {
      message: `limit must be a whole number from 1 to ${MAX_LIMIT}, not "${raw}"`,
    });
  return n;
}

/**
 * Bytes as a text/plain answer, as they are (a file as fetched need not be UTF-8, so it
 * is not decoded); typed as the text the route declares.
 */
export function bytes(
  c: Context,
  body: Uint8Array,
  headers: Record<string, string>,
): TypedResponse<string, 200, 'text'> {
  return c.body(new Uint8Array(body), 200, headers) as unknown as TypedResponse<
    string,
    200,
    'text'
  >;
}

/**
 * A streamed answer of newline-delimited JSON. The route's description names its media
 * type and the document of each line; @hono/zod-openapi types the answers of JSON and
 * text routes only, and leaves other media types no type a handler's answer can have.
 */
export function lines(response: Response): never {
  return response as never;
}
