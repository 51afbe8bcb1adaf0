/**
 * The pages of what applies across sites: the crawlers (with the presets, made and
 * changed here) and the notification channels (with the default recipients added here,
 * and a test for each channel).
 */
import { refusalStatus } from '../sites.js';
import type { Context, Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { SiteChangeRefused } from '../../monitor/sites/entries.js';
import { viewCrawlerGroups, viewCrawlers } from '../../monitor/views/crawlers.js';
import { TREND_BY, viewTrends } from '../../monitor/views/trends.js';
import type { TrendBy } from '../../monitor/views/trends.js';
import { TrendsPageView } from '../pages/trends.js';
import { describeVersion } from '../../policy/registry.js';
import type { WebEnv } from '../auth.js';
import { may } from '../auth.js';
import { actorOf, audited } from '../audit.js';
import type { WebDeps } from '../deps.js';
import { notificationsNow, sendChannelTest } from '../notifications.js';
import type { TestResult } from '../notifications.js';
import { CrawlersPageView, presetAgentsOf } from '../pages/crawlers.js';
import type { PresetForm } from '../pages/crawlers.js';
import { NotificationsPageView } from '../pages/notifications.js';
import type { ChannelsForm } from '../pages/notifications.js';
import { agentText, emailsOfText, webhooksOfText } from '../pages/site-form.js';
import type { ConfiguredSites } from '../sites.js';
import type { Render } from './render.js';
import { postedForm } from './form.js';

type Notice = { readonly text: string; readonly error: boolean };

/**
 * A refusal as a form says it: the field's label for the key, and the item it is about
 * ("Crawlers (Google.bot): must be …" rather than "agents[1]: must be …").
 */
export function fieldMessage(
  message: string,
  fields: Readonly<Record<string, { label: string; values: readonly string[] }>>,
): string {
  const match = /^(\w+)(?:\[(\d+)\])?(?:\.\w+)?: /.exec(message);
  const field = match === null ? undefined : fields[match[1]!];
  if (match === null || field === undefined) return message;
  const item = match[2] === undefined ? undefined : field.values[Number(match[2])];
  return `${field.label}${item === undefined ? '' : ` (${item})`}: ${message.slice(match[0].length)}`;
}

export function registerSettingsPages(
  app: Hono<WebEnv>,
  deps: WebDeps,
  sites: ConfiguredSites,
  render: Render,
): void {
  const canEdit = (c: Context<WebEnv>) => may(c, 'write');
  const text = (body: Record<string, unknown>, name: string) =>
    typeof body[name] === 'string' ? body[name] : '';

  // Every crawler's counts, and the presets.
  const crawlersPage = async (
    c: Context<WebEnv>,
    notice?: Notice,
    form?: PresetForm,
    status?: ContentfulStatusCode,
  ) =>
    render(
      c,
      <CrawlersPageView
        crawlers={await viewCrawlers(deps.store)}
        groups={await viewCrawlerGroups(deps.store, deps.catalog.file.registry.active.registry)}
        registry={{
          version: describeVersion(deps.catalog.file.registry.active.version),
          url: deps.catalog.file.registry.url,
        }}
        presets={deps.catalog.presets()}
        defaults={deps.catalog.file.siteDefaults.agents.map(agentText).join(', ')}
        signedIn={c.get('signedIn')}
        canEdit={canEdit(c)}
        notice={notice}
        form={form}
        file={deps.catalog.file.file}
      />,
      status,
    );
  app.get('/trends', async (c) => {
    const asked = c.req.query('by') ?? 'purpose';
    const by: TrendBy = (TREND_BY as readonly string[]).includes(asked)
      ? (asked as TrendBy)
      : 'purpose';
    const weighted = c.req.query('weighted') === '1';
    const trends = await viewTrends(
      deps.store,
      (await sites.all(c)).map((e) => e.site),
      deps.catalog.config,
      { by, weighted, now: deps.now() },
    );
    return render(
      c,
      <TrendsPageView trends={trends} by={by} weighted={weighted} signedIn={c.get('signedIn')} />,
    );
  });
  app.get('/crawlers', (c) => {
    const saved = c.req.query('saved');
    const deleted = c.req.query('deleted');
    const preset = deps.catalog.presets().find((p) => p.name === saved && p.source === 'api');
    const notice =
      preset !== undefined
        ? {
            text: `${preset.name} saved: ${preset.agents.length} crawler${preset.agents.length === 1 ? '' : 's'}${preset.usedBy.length > 0 ? `, watched from now on by the ${preset.usedBy.length} site${preset.usedBy.length === 1 ? '' : 's'} that name it` : ''}.`,
            error: false,
          }
        : deleted !== undefined && /^@[a-z0-9-]{1,40}$/.test(deleted)
          ? { text: `${deleted} deleted.`, error: false }
          : undefined;
    return crawlersPage(c, notice);
  });
  app.post('/crawlers/presets', async (c) => {
    const body = await postedForm(c);
    const form = { name: text(body, 'name').trim(), agents: text(body, 'agents') };
    const agents = presetAgentsOf(form);
    try {
      if (text(body, 'mode') === 'new' && deps.catalog.presets().some((p) => p.name === form.name))
        throw new SiteChangeRefused(
          'conflict',
          `name: ${form.name} exists already: edit it in the list`,
        );
      const before = deps.catalog.presets().find((p) => p.name === form.name) ?? null;
      const preset = await deps.catalog.setPreset(form.name, { agents });
      await audited(deps, actorOf(c), {
        action: 'preset.set',
        target: preset.name,
        before: before === null ? null : { agents: before.agents },
        after: { agents: preset.agents },
      });
      deps.logger.info(
        { preset: preset.name, agents: preset.agents.length },
        'preset saved from the web',
      );
    } catch (error) {
      if (!(error instanceof SiteChangeRefused)) throw error;
      const message = fieldMessage(error.message, {
        name: { label: 'Name', values: [] },
        agents: { label: 'Crawlers', values: agents },
      });
      return crawlersPage(c, { text: message, error: true }, form, refusalStatus(error));
    }
    return c.redirect(`/crawlers?saved=${encodeURIComponent(form.name)}#presets`, 303);
  });
  app.post('/crawlers/presets/:name/delete', async (c) => {
    const name = `@${c.req.param('name')}`;
    try {
      const before = deps.catalog.presets().find((p) => p.name === name) ?? null;
      await deps.catalog.deletePreset(name);
      await audited(deps, actorOf(c), {
        action: 'preset.delete',
        target: name,
        before: before === null ? null : { agents: before.agents },
      });
    } catch (error) {
      if (!(error instanceof SiteChangeRefused)) throw error;
      return crawlersPage(c, { text: error.message, error: true }, undefined, refusalStatus(error));
    }
    deps.logger.info({ preset: name }, 'preset deleted from the web');
    return c.redirect(`/crawlers?deleted=${encodeURIComponent(name)}#presets`, 303);
  });

  // Where alerts go, which channels fail, a test for each, and the defaults added here.
  const notificationsPage = async (
    c: Context<WebEnv>,
    extra: { result?: TestResult; notice?: Notice; form?: ChannelsForm } = {},
    status?: ContentfulStatusCode,
  ) =>
    render(
      c,
      <NotificationsPageView
        view={await notificationsNow(c, deps, sites)}
        signedIn={c.get('signedIn')}
        canSend={may(c, 'admin') && deps.sendTest !== undefined}
        tokenSet={c.get('guarded')}
        result={extra.result}
        defaults={deps.catalog.defaultChannels()}
        canEdit={may(c, 'admin')}
        notice={extra.notice}
        form={extra.form}
        file={deps.catalog.file.file}
        allowPrivate={deps.config.fetch.allowPrivateAddresses}
      />,
      status,
    );
  app.get('/notifications', (c) =>
    notificationsPage(
      c,
      c.req.query('saved') === undefined
        ? {}
        : {
            notice: {
              text: 'Default recipients saved: every site without its own alerts them from now on (Send a test below to check one).',
              error: false,
            },
          },
    ),
  );
  app.post('/notifications/test', async (c) => {
    const body = await postedForm(c);
    const result = await sendChannelTest(c, deps, sites, text(body, 'channel'));
    return notificationsPage(c, { result });
  });
  app.post('/notifications/defaults', async (c) => {
    const body = await postedForm(c);
    const form = { email: text(body, 'email'), webhooks: text(body, 'webhooks') };
    const email = emailsOfText(form.email);
    const webhooks = webhooksOfText(form.webhooks, deps.catalog.defaultChannels().added.webhooks);
    try {
      const before = deps.catalog.defaultChannels().added;
      await deps.catalog.setDefaultChannels({ email, webhooks });
      await audited(deps, actorOf(c), {
        action: 'recipients.set',
        target: 'default recipients',
        before,
        after: deps.catalog.defaultChannels().added,
      });
    } catch (error) {
      if (!(error instanceof SiteChangeRefused)) throw error;
      const text = fieldMessage(error.message, {
        email: { label: 'Alert emails to', values: email },
        webhooks: { label: 'Webhooks', values: webhooks.map((w) => w.url) },
      });
      return notificationsPage(c, { notice: { text, error: true }, form }, refusalStatus(error));
    }
    deps.logger.info(
      { email: email.length, webhooks: webhooks.length },
      'default recipients saved from the web',
    );
    return c.redirect('/notifications?saved=1#defaults', 303);
  });
}
