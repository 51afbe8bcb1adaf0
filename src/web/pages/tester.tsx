import type { FC } from 'hono/jsx';
import type { TesterSiteEffect } from '../../policy/tester.js';
import type { TesterResult } from '../../policy/tester.js';
import { preferencesText } from '../../policy/preferences.js';
import type { PreferencesDocument } from '../../policy/preferences.js';
import { Layout, Notice, SiteChoice, SiteRefusalNotice, Verdict, causeText } from './components.js';
import type { SiteChoices, SiteRefusal } from './components.js';
import { grouped } from '../../policy/wording/words.js';
import type { TesterIntent } from '../../policy/tester-intent.js';
import { ViolationList } from './intent.js';
import { pathOf } from '../../policy/intent.js';

export interface TesterForm {
  readonly siteId: string;
  readonly robots: string;
  readonly agents: string;
  readonly urls: string;
}

export interface TesterPageProps {
  /** The sites to test against (web/sites.ts's choices). */
  readonly sites: SiteChoices;
  readonly form: TesterForm;
  readonly result: (TesterResult & { live: boolean }) | undefined;
  /** The file judged against the chosen site's intent; undefined without a site. */
  readonly intent?: TesterIntent | undefined;
  readonly error: string | undefined;
  /** The site typed names none, or several: `error` says so, with the sites it may mean. */
  readonly refused?: SiteRefusal | undefined;
  /**
   * Nothing was pasted yet (the page opened by a link): a site it may mean is a link that
   * opens the tester on it; else one to type, not to lose what was pasted.
   */
  readonly chooses?: boolean;
  readonly signedIn: boolean;
}

/**
 * Paste a robots.txt (or start from a snapshot), choose agents and URLs, and see what it
 * decides, beside what the live file decides: the check to run before deploying a file.
 */
export const TesterPageView: FC<TesterPageProps> = ({
  sites,
  form,
  result,
  intent,
  error,
  refused,
  chooses = false,
  signedIn,
}) => {
  const changed = result?.rows.filter((r) => r.changed).length ?? 0;
  return (
    <Layout title="Tester" signedIn={signedIn}>
      <h1>Test a robots.txt</h1>
      {refused !== undefined ? (
        <SiteRefusalNotice
          refusal={refused}
          link={chooses ? { base: '/tester', params: {} } : undefined}
        />
      ) : error === undefined ? null : (
        <Notice error>{error}</Notice>
      )}
      <form method="post" action="/tester">
        <p>
          <label>
            Site (to resolve paths and compare with its live file){' '}
            <SiteChoice
              choices={sites}
              site={form.siteId === '' ? undefined : Number(form.siteId)}
              none="none: absolute URLs, nothing to compare"
            />
          </label>
        </p>
        <div class="grid2">
          <label>
            robots.txt
            <textarea name="robots" rows={18} spellcheck={false}>
              {form.robots}
            </textarea>
          </label>
          <div>
            <label>
              Agents, one per line: a token, then optionally google, rfc9309 or legacy
              <textarea name="agents" rows={7} spellcheck={false}>
                {form.agents}
              </textarea>
            </label>
            <label>
              URLs, one per line: paths on the site, or absolute URLs
              <textarea name="urls" rows={8} spellcheck={false}>
                {form.urls}
              </textarea>
            </label>
          </div>
        </div>
        <p>
          <button type="submit">Test</button>
        </p>
      </form>
      {result === undefined ? null : (
        <>
          {/* What a deploy would make of the site first: the verdicts below say why. */}
          {intent === undefined ? null : <AgainstIntent intent={intent} />}
          <h2>Verdicts</h2>
          <p class="summary">
            {result.live
              ? changed === 0
                ? 'Deploying this file changes no verdict.'
                : `Deploying this file changes ${changed} verdict${changed === 1 ? '' : 's'}.`
              : 'No live file to compare with.'}
          </p>
          <table>
            <thead>
              <tr>
                <th>URL</th>
                <th>Agent</th>
                <th>This file</th>
                {result.live ? <th>Live</th> : null}
              </tr>
            </thead>
            <tbody>
              {result.rows.map((row) => (
                <tr>
                  <td class="mono">{form.siteId === '' ? row.url : pathOf(row.url)}</td>
                  <td>{row.agent}</td>
                  <td class={row.changed ? 'changed' : ''}>
                    <Verdict allowed={row.proposed.allowed} />
                    <br />
                    <span class="muted mono">{causeText(row.proposed.cause)}</span>
                    <UsageNote preferences={row.preferences} />
                  </td>
                  {result.live ? (
                    <td>
                      {row.live === null ? null : (
                        <>
                          <Verdict allowed={row.live.allowed} />
                          <br />
                          <span class="muted mono">{causeText(row.live.cause)}</span>
                        </>
                      )}
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </table>
          <h2>The whole site</h2>
          {result.site === null ? (
            <p class="muted">
              {form.siteId === ''
                ? 'Choose a site to test this file against every URL of its sitemaps.'
                : 'This site has no URL set yet: with its sitemaps on (sitemaps: auto in the configuration), the file is tested against every URL of them after the next check.'}
            </p>
          ) : (
            <ul class="site-effects">
              {result.site.effects.map((e) => (
                <li>{siteEffectText(e, result.site!.urls, result.live)}</li>
              ))}
            </ul>
          )}
          <h2>Lint findings</h2>
          {result.findings.length === 0 ? (
            <p class="muted">None.</p>
          ) : (
            <ul>
              {result.findings.map((f) => (
                <li class={`finding-${f.severity}`}>
                  line {f.line}: {f.message}
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </Layout>
  );
};

const n = (value: number) => grouped(value);
const share = (part: number, whole: number) =>
  whole === 0 ? '0%' : `${((100 * part) / whole).toFixed(part === whole || part === 0 ? 0 : 1)}%`;

/** One group of crawlers' effect in a sentence: what deploying the file does to the site. */
export function siteEffectText(effect: TesterSiteEffect, urls: number, live: boolean): string {
  const who = effect.agents.join(', ');
  if (!live)
    return `This file disallows ${n(effect.disallowed)} of ${n(urls)} sitemap URLs (${share(effect.disallowed, urls)}) for ${who}.`;
  if (effect.newlyDisallowed === 0 && effect.newlyAllowed === 0)
    return `No change for ${who}: it may fetch ${n(urls - effect.disallowed)} of ${n(urls)} sitemap URLs (${share(urls - effect.disallowed, urls)}), as now.`;
  const parts: string[] = [];
  if (effect.newlyDisallowed > 0) {
    const top = effect.prefixes[0];
    const rule = effect.rules[0];
    parts.push(
      `newly block ${n(effect.newlyDisallowed)} of ${n(urls)} sitemap URLs (${share(effect.newlyDisallowed, urls)}) for ${who}${top === undefined ? '' : ` (top: ${top.prefix} ${n(top.urls)})`}${rule === undefined ? '' : `, by line ${rule.line} \`${rule.directive === 'allow' ? 'Allow' : 'Disallow'}: ${rule.pattern}\``}`,
    );
  }
  if (effect.newlyAllowed > 0)
    parts.push(
      `${effect.newlyDisallowed > 0 ? '' : `for ${who}, `}newly allow ${n(effect.newlyAllowed)}${effect.newlyDisallowed > 0 ? '' : ` of ${n(urls)} sitemap URLs`}`,
    );
  return `Deploying this file would ${parts.join(' and ')}.`;
}

/**
 * What deploying the file would make of the site against its owner's intent: as
 * intended, not (the cells, a line a page, and how many the live file gets wrong too), or
 * not checkable at all (an HTML page).
 */
const AgainstIntent: FC<{ intent: TesterIntent }> = ({ intent }) => {
  const { evaluation, already } = intent;
  const pairs = (k: number) => `${grouped(k)} page × crawler pair${k === 1 ? '' : 's'}`;
  return (
    <>
      <h2>Against its intent</h2>
      {evaluation.state === 'cannot-check' ? (
        <p class="summary">Once deployed, {evaluation.reason}.</p>
      ) : evaluation.judged === 0 ? (
        <p class="muted">The site’s intent judges none of these pages and crawlers.</p>
      ) : evaluation.state === 'as-intended' ? (
        <p class="summary">
          As intended: the {pairs(evaluation.judged)} its intent judges here stay as its owner
          intends.
        </p>
      ) : (
        <>
          <p class="summary">
            Not as intended: once deployed, {intent.lead}
            {already === 0
              ? '. The live file gets them right.'
              : already === evaluation.violationCount
                ? '. The live file does the same.'
                : `. The live file does the same for ${grouped(already)} of them.`}
          </p>
          <ViolationList violations={evaluation.violations} count={evaluation.violationCount} />
        </>
      )}
    </>
  );
};

/** The usage preferences a cell's URL has, in a muted line ("usage: train-ai=n (line 4)"). */
export const UsageNote: FC<{ preferences: PreferencesDocument | undefined }> = ({
  preferences,
}) => {
  const text = preferences === undefined ? '' : preferencesText(preferences);
  return text === '' ? null : (
    <>
      <br />
      <span class="muted mono usage">usage: {text}</span>
    </>
  );
};
