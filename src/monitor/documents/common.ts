/**
 * The pieces documents share: instants, ids, the link to the next page, and the domain
 * records they carry (a fetch status, a verdict, a change event, a cause, a lint finding).
 * Each is a zod schema: the API's answers are typed against them, and its OpenAPI
 * document is made from them. Records with many variants (causes, events) are described
 * by what every variant has; the rest of a variant passes through as it is.
 */
import { z } from 'zod';
import { CHANGE_EVENT_TYPES } from '../../policy/changes/events.js';
import { FETCH_ERROR_KINDS } from '../../policy/fetch-result.js';

/** A list: documents are read, never changed in place (so readonly lists fit them). */
export const list = <T extends z.ZodType>(item: T) => z.array(item).readonly();

/** An instant: ISO 8601 in UTC (dates are written so in JSON). */
export const Timestamp = z.iso.datetime().meta({ description: 'an instant, ISO 8601 (UTC)' });

export const Id = z.number().int().positive();

/** The URL of the next page, or null on the last. */
export const Next = z.string().nullable().meta({ description: 'the next page, or null' });

/** Every error the API answers. */
export const ErrorDocument = z
  .object({
    error: z.object({
      status: z.number().int(),
      message: z.string().meta({ description: 'one line saying what is wrong' }),
    }),
  })
  .meta({ id: 'Error' });

export const Access = z.enum(['ok', 'unavailable', 'unreachable']);

/** Why no HTTP status was obtained: dns, refused, timeout, blocked… */
export const FetchError = z.enum(FETCH_ERROR_KINDS);

/** What robots.txt answered, under the site's profile. */
export const FetchStatusDocument = z
  .object({ access: Access, status: z.number().int().optional(), error: z.string().optional() })
  .meta({ id: 'FetchStatus' });

/** Why a verdict is what it is: the deciding rule, or the access state. */
export const VerdictCauseDocument = z
  .union([
    z.object({
      type: z.literal('rule'),
      directive: z.enum(['allow', 'disallow']),
      pattern: z.string(),
      line: z.number().int(),
    }),
    z.object({ type: z.literal('access'), access: z.enum(['unreachable', 'unavailable']) }),
  ])
  .meta({ id: 'VerdictCause' });

export const VerdictDocument = z
  .object({
    url: z.string(),
    agent: z.string(),
    profile: z.enum(['google', 'rfc9309', 'legacy']),
    allowed: z.boolean(),
    cause: VerdictCauseDocument.nullable(),
  })
  .meta({ id: 'Verdict' });

/** A change event: a verdict that flipped, a status, rules or sitemaps that changed. */
export const EventDocument = z
  .object({ type: z.enum(CHANGE_EVENT_TYPES), site: z.string() })
  .catchall(z.any())
  .meta({ id: 'ChangeEvent', description: 'a change between two states (its fields by type)' });

/** A watched page × crawler pair a cause changed. */
export const PairDocument = z.object({
  url: z.string(),
  agent: z.string(),
  allowed: z.boolean(),
  flipped: z.boolean(),
});

/** A cause of a change, as alerts say it (its fields by type). */
export const CauseDocument = z
  .object({ type: z.string(), pairs: list(PairDocument) })
  .catchall(z.any())
  .meta({ id: 'Cause', description: 'why a change happened (its fields by type)' });

export const LintFindingDocument = z
  .object({
    code: z.string(),
    severity: z.enum(['error', 'warning', 'info']),
    line: z.number().int(),
    message: z.string(),
  })
  .meta({ id: 'LintFinding' });

/** The version of an AI crawler registry. */
export const RegistryVersionDocument = z
  .object({ sha256: z.string(), source: z.string(), date: z.string(), agents: z.number().int() })
  .meta({ id: 'RegistryVersion' });
