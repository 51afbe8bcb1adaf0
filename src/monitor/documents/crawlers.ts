/**
 * Crawlers as documents: each crawler across sites, one crawler on every site, the AI
 * registry in use, the crawler presets, and the blocking trends by month.
 */
import { z } from 'zod';
import { PURPOSES } from '../../policy/registry.js';
import type { RegistryAgent, RegistryVersion } from '../../policy/registry.js';
import { CRAWLER_VERDICTS } from '../views/crawlers.js';
import type { CrawlerPage } from '../views/crawlers.js';
import { TREND_BY } from '../views/trends.js';
import { Id, list, RegistryVersionDocument } from './common.js';

const Count = z.number().int();

/** Every crawler watched on some site, and the registry's purposes and operators. */
export const CrawlersDocument = z
  .object({
    crawlers: list(z.object({ agent: z.string(), blocked: Count, partly: Count, allowed: Count })),
    groups: list(
      z.object({
        kind: z.enum(['purpose', 'operator']),
        label: z.string(),
        preset: z.string(),
        agents: list(z.string()),
        blocked: Count,
        partly: Count,
        allowed: Count,
      }),
    ),
  })
  .meta({ id: 'Crawlers' });

const CrawlerVerdict = z.enum(CRAWLER_VERDICTS);

/** One crawler on every watched site, most restrictive first, a page at a time. */
export const CrawlerDocument = z
  .object({
    agent: z.string(),
    counts: z.record(CrawlerVerdict, Count),
    sites: list(
      z.object({
        id: Id,
        origin: z.string(),
        name: z.string().nullable(),
        verdict: CrawlerVerdict,
        disallowed: Count.nullable(),
        watched: Count.nullable(),
      }),
    ),
    total: Count,
    page: Count,
    pages: Count,
  })
  .meta({ id: 'Crawler' });

export function crawlerDocument(view: CrawlerPage) {
  return {
    agent: view.agent,
    counts: view.counts,
    sites: view.rows.map((r) => ({
      id: r.id,
      origin: r.site.origin,
      name: r.site.name,
      verdict: r.verdict,
      disallowed: r.disallowed,
      watched: r.watched,
    })),
    total: view.total,
    page: view.page,
    pages: view.pages,
  };
}

/** The AI crawler registry in use: its version, where it is refreshed from, its crawlers. */
export const RegistryDocument = z
  .object({
    version: RegistryVersionDocument,
    url: z.string().nullable(),
    refresh: z.string().nullable().meta({ description: 'when it is refreshed (cron)' }),
    agents: list(
      z.object({
        token: z.string(),
        name: z.string(),
        operator: z.string().nullable(),
        preset: z.string().nullable(),
        purposes: list(z.enum(PURPOSES)),
        respectsRobotsTxt: z.enum(['yes', 'no', 'unknown']),
      }),
    ),
  })
  .meta({ id: 'Registry' });

export function registryDocument(
  version: RegistryVersion,
  agents: readonly RegistryAgent[],
  url: string | null,
  refresh: string,
) {
  return {
    version,
    url,
    refresh: url === null ? null : refresh,
    agents: agents.map((a) => ({
      token: a.token,
      name: a.name,
      operator: a.operator,
      preset: a.operatorSlug === null ? null : `@operator:${a.operatorSlug}`,
      purposes: a.purposes,
      respectsRobotsTxt: a.respectsRobotsTxt,
    })),
  };
}

/** A crawler preset: built in, the configuration file's, or made in the UI or API. */
export const PresetDocument = z
  .object({
    name: z.string(),
    agents: list(z.string()),
    source: z.enum(['built-in', 'file', 'api']),
    overridden: z.boolean().meta({ description: 'made here, and now the file defines it too' }),
    usedBy: list(Id).meta({ description: 'the sites added here whose crawlers name it' }),
  })
  .meta({ id: 'Preset' });

export const PresetsDocument = z.object({ presets: list(PresetDocument) }).meta({ id: 'Presets' });

/** Per month, the share of the sites watching a group's crawlers that block them. */
export const TrendsDocument = z
  .object({
    by: z.enum(TREND_BY),
    trends: list(
      z.object({
        group: z.string().meta({
          description: 'a crawler token in lower case, @operator:SLUG or @ai-PURPOSE',
        }),
        label: z
          .string()
          .meta({ description: 'the group as people read it: GPTBot, OpenAI, AI training' }),
        points: list(
          z.object({
            month: z.string().meta({ description: 'YYYY-MM' }),
            sites: z.number(),
            full: z.number(),
            partly: z.number(),
            none: z.number(),
            noRobotsTxt: z.number(),
          }),
        ),
      }),
    ),
  })
  .meta({ id: 'Trends' });
