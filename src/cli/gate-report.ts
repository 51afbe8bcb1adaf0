/**
 * What `robowatch gate` prints, in four forms: text for people, JSON for scripts, JUnit
 * XML for CI systems' test reports, and GitHub Actions workflow commands (annotations on
 * the draft's lines). Each says the same findings in the same words as alerts.
 */
import type { IntentSource } from '../config/intent.js';
import type { CoverageCause } from '../policy/changes/cause-model.js';
import type { GateViolation } from '../policy/gate.js';
import { draftLead, intentLead, violationCause, violationText } from '../policy/incidents.js';
import { describeCrawlers, explainCause, listNames } from '../policy/wording/explain.js';
import { percent, ruleString } from '../policy/wording/rule-words.js';
import { pathOf } from '../policy/intent.js';
import type { ViolationGrid } from '../policy/intent.js';
import type { WatchVerdict } from '../policy/verdicts.js';
import { oneLineText, siteLabel, visibleControls } from '../policy/wording/format.js';
import { answers, fromRedirect } from '../policy/wording/status-words.js';
import type { ExplainContext } from '../policy/wording/words.js';
import { count, grouped } from '../policy/wording/words.js';
import type { GateReport } from '../monitor/gate.js';
import { causeLines } from './print-causes.js';

export const GATE_FORMATS = ['text', 'json', 'junit', 'github'] as const;
export type GateFormat = (typeof GATE_FORMATS)[number];

/** One thing the gate found, where the draft says it. */
export interface GateFinding {
  /** `error` fails the gate; `warning` and `notice` do not. */
  readonly severity: 'error' | 'warning' | 'notice';
  readonly kind: 'file' | 'intent' | 'coverage' | 'unjudged' | 'lint' | 'live' | 'sitemaps';
  /** The draft's line it is about; null: the whole file or the site. */
  readonly line: number | null;
  readonly title: string;
  readonly message: string;
}

export interface GateReportContext {
  /** The draft's path as given ("-": standard input). */
  readonly file: string;
  readonly at: Date;
}

/** The site as alerts call it: "Shop (shop.example)", or its host. */
function labelOf(report: GateReport): string {
  return siteLabel(report.site.origin, report.site.name);
}

function explainContext(report: GateReport, at: Date): ExplainContext {
  return { agents: report.site.agents.map((a) => a.token), at };
}

/** Everything the gate found, errors first, each on its line of the draft where it has one. */
export function gateFindings(report: GateReport, context: GateReportContext): GateFinding[] {
  const { result } = report;
  const findings: GateFinding[] = [];
  if (result.intent.state === 'cannot-check')
    findings.push({
      severity: 'error',
      kind: 'file',
      line: null,
      title: 'The draft cannot be judged',
      message: `Once deployed, ${result.intent.reason ?? 'crawlers would not read it as robots.txt'}.`,
    });
  findings.push(
    ...intentFindings(
      result.violations,
      result.intent.violationCount,
      result.newOnly,
      result.intent.grid,
    ),
  );
  for (const cause of result.coverage?.causes ?? [])
    findings.push(...coverageFindings(report, cause, context.at));
  findings.push(...unjudgedFindings(report));
  for (const f of result.findings)
    findings.push({
      severity: f.severity === 'info' ? 'notice' : 'warning',
      kind: 'lint',
      line: f.line,
      title: `robots.txt lint: ${f.code}`,
      message: visibleControls(f.message.replace(/^Line \d+: /, '')),
    });
  if (!result.live.read)
    findings.push({
      severity: 'warning',
      kind: 'live',
      line: null,
      title: 'The live robots.txt was not read',
      message: liveSentence(report),
    });
  for (const problem of report.urlSet?.problems ?? [])
    findings.push({
      severity: 'notice',
      kind: 'sitemaps',
      line: null,
      title: 'Sitemaps',
      message: problem,
    });
  const order = { error: 0, warning: 1, notice: 2 } as const;
  return findings.sort((a, b) => order[a.severity] - order[b.severity]);
}

/** The cells that differ from the intent, one finding per reason (a rule's line, mostly). */
function intentFindings(
  violations: readonly GateViolation[],
  total: number,
  newOnly = false,
  /** Every differing cell as one block, when more differ than are listed and they make one. */
  grid?: ViolationGrid,
): GateFinding[] {
  const byReason = new Map<string, GateViolation[]>();
  for (const v of violations) {
    const reason = violationCause(v);
    const list = byReason.get(reason);
    if (list === undefined) byReason.set(reason, [v]);
    else list.push(v);
  }
  const findings = [...byReason].map(([reason, cells]): GateFinding => {
    const cause = cells[0]!.cause;
    const already = cells.every((c) => c.live)
      ? ' The live file already does this.'
      : cells.some((c) => c.live)
        ? ' The live file already does this for some of them.'
        : '';
    return {
      // With --new-only, what the live file already gets wrong does not stop the deploy.
      severity: newOnly && cells.every((c) => c.live) ? 'warning' : 'error',
      kind: 'intent',
      line: cause?.type === 'rule' ? cause.line : null,
      title: 'Not as intended',
      message: `${cellsText(cells, violationText)}. Why: ${reason}.${already}`,
    };
  });
  const unlisted = total - violations.length;
  if (unlisted > 0)
    findings.push({
      severity: 'error',
      kind: 'intent',
      line: null,
      title: 'Not as intended',
      // The pages listed name only the crawlers listed for them: a block said whole says
      // that the rest are shut too ("/p0 is blocked for Googlebot … Applebot" is not all).
      message: `and ${count(unlisted, 'more watched page × crawler pair')} differ from the intent (not listed)${grid === undefined ? '' : `; all ${total} as one block: ${intentLead('not-as-intended', violations, total, undefined, grid)}`}.`,
    });
  return findings;
}

/**
 * Cells said by page, their crawlers together: "`/pricing` is blocked for Googlebot,
 * Bingbot and 3 more, meant to be crawled; `/team` is …", a few pages at most.
 */
function cellsText<T extends { readonly url: string; readonly agent: string }>(
  cells: readonly T[],
  say: (cell: T) => string,
  pages = 5,
): string {
  const byPage = new Map<string, T[]>();
  for (const cell of cells) {
    const key = say({ ...cell, agent: '\u0000' });
    const list = byPage.get(key);
    if (list === undefined) byPage.set(key, [cell]);
    else list.push(cell);
  }
  const said = [...byPage].slice(0, pages).map(([key, list]) => {
    const names = list.map((c) => c.agent);
    const shown =
      names.length <= 5
        ? listNames(names)
        : `${names.slice(0, 4).join(', ')} and ${names.length - 4} more`;
    return key.replace('\u0000', shown);
  });
  const more = byPage.size - said.length;
  return `${said.join('; ')}${more > 0 ? `; and ${count(more, 'more page')}` : ''}`;
}

/** A coverage change on the lines that make it: an error at or over notify.coverage. */
function coverageFindings(report: GateReport, cause: CoverageCause, at: Date): GateFinding[] {
  if (cause.newlyDisallowed === 0) return [];
  const severity = cause.significant ? 'error' : 'warning';
  const title = cause.significant
    ? 'Blocks too much of the sitemap URL set'
    : 'Blocks part of the sitemap URL set';
  const total = coverageTotal(report, cause);
  if (cause.rules.length === 0) {
    const said = explainCause(cause, explainContext(report, at));
    return [
      {
        severity,
        kind: 'coverage',
        line: null,
        title,
        message: `${total} ${oneLineText(said.consequence)}`,
      },
    ];
  }
  const who = describeCrawlers(cause.agents, { agents: report.site.agents.map((a) => a.token) });
  return cause.rules.map((rule) => ({
    severity,
    kind: 'coverage',
    line: rule.line,
    title,
    message: `\`${ruleString(rule)}\` (line ${rule.line}) newly blocks ${grouped(rule.urls)} of ${count(cause.urls, 'sitemap URL')} for ${who}. ${total}`,
  }));
}

/** How much of the URL set a coverage change newly blocks, beside what the gate lets through. */
function coverageTotal(report: GateReport, cause: CoverageCause): string {
  const { minUrls, minShare } = report.result.coverage!.thresholds;
  const who = describeCrawlers(cause.agents, { agents: report.site.agents.map((a) => a.token) });
  return `In all, the draft newly blocks ${grouped(cause.newlyDisallowed)} (${percent(cause.newlyDisallowed, cause.urls)}) of them for ${who}; the gate fails from ${count(minUrls, 'URL')} and ${+(minShare * 100).toFixed(3)}% of the set (notify.coverage).`;
}

/** Watched pages the draft newly blocks where no intent entry says what is meant. */
function unjudgedFindings(report: GateReport): GateFinding[] {
  const byLine = new Map<number | null, WatchVerdict[]>();
  for (const v of report.result.unjudged) {
    const line = v.cause?.type === 'rule' ? v.cause.line : null;
    const list = byLine.get(line);
    if (list === undefined) byLine.set(line, [v]);
    else list.push(v);
  }
  return [...byLine].map(([line, cells]) => ({
    severity: 'warning',
    kind: 'unjudged',
    line,
    title: 'Newly blocked where the intent says nothing',
    message: `${cellsText(cells, (v) => `\`${pathOf(v.url)}\` is newly blocked for ${v.agent}`)}. No intent entry says whether these crawlers should fetch these pages: add one to make this an error, or to accept it.`,
  }));
}

function liveSentence(report: GateReport): string {
  const { live, result } = report;
  const status = result.live.status;
  const answer = `${live.url} ${answers(status)}`;
  if (status.access === 'unavailable')
    return `${answer}: crawlers may fetch every page now, so everything the draft blocks is new.`;
  if (status.access === 'unreachable')
    return `${answer}: Google crawls nothing on the site while it does, so nothing the draft blocks is new to Google; the draft is still judged against the intent.`;
  return `${answer}: the draft is compared with the site as crawlers find it now.`;
}

/** The one-line verdict: PASS or FAIL, and why. */
export function gateHeadline(report: GateReport, findings: readonly GateFinding[]): string {
  const label = labelOf(report);
  const { intent } = report.result;
  const urlSet =
    report.result.coverage === null
      ? ''
      : ' and newly blocks no more of its sitemap URL set than notify.coverage allows';
  if (report.result.passed && intent.violationCount > 0)
    return `PASS (--new-only): the draft makes nothing worse for ${label}${urlSet}; ${count(intent.violationCount, 'watched page × crawler pair')} differ${intent.violationCount === 1 ? 's' : ''} from the intent as live.`;
  if (report.result.passed) return `PASS: the draft keeps ${label} as intended${urlSet}.`;
  // What crawlers would do once it ships, said as alerts lead ("/pricing and /cart would
  // be blocked for Googlebot and Bingbot"), of every differing cell, or of the new ones.
  const { everyViolation, newOnly, newViolations } = report.result;
  const differing = newOnly ? everyViolation.filter((v) => !v.live) : everyViolation;
  const parts = [
    ...(intent.state === 'cannot-check' ? ['crawlers would not read it as robots.txt'] : []),
    ...(intent.state !== 'cannot-check' && (newOnly ? newViolations : intent.violationCount) > 0
      ? [`once deployed, ${draftLead(differing, 'watched page × crawler pair', newOnly)}`]
      : []),
    ...(findings.some((e) => e.kind === 'coverage' && e.severity === 'error')
      ? ['it newly blocks more of the sitemap URL set than notify.coverage allows']
      : []),
  ];
  return `FAIL: the draft must not ship for ${label}: ${parts.join('; ')}.`;
}

/** Which intent the draft is judged against, as the text report's third line says it. */
const INTENT_FROM: Readonly<Record<IntentSource, string>> = {
  'built-in': 'the built-in intent',
  file: 'the file’s intent',
  'site-file': 'the site’s intent in the file',
  web: 'its intent set in the web UI',
};

/** The text report. */
export function gateText(report: GateReport, context: GateReportContext): string {
  const findings = gateFindings(report, context);
  const { result } = report;
  const lines = [
    `robowatch gate: ${context.file === '-' ? 'the draft on standard input' : context.file} for ${labelOf(report)}`,
    `Live file: ${report.live.url} ${answers(result.live.status)}${fromRedirect(report.live.redirect)}`,
    `Watched: ${count(report.site.watches.length, 'page')} × ${count(report.site.agents.length, 'crawler')}; ${INTENT_FROM[report.site.intent.from]} judges ${count(result.intent.judged, 'pair')}; sitemap URL set: ${report.urlSet === null ? 'not read' : count(report.urlSet.urls, 'URL')}`,
    '',
    gateHeadline(report, findings),
  ];
  for (const severity of ['error', 'warning', 'notice'] as const) {
    const some = findings.filter((f) => f.severity === severity);
    if (some.length === 0) continue;
    lines.push(
      '',
      `${severity === 'error' ? 'Errors' : severity === 'warning' ? 'Warnings' : 'Notes'} (${some.length}):`,
    );
    for (const f of some)
      lines.push(`  ${f.line === null ? '' : `line ${f.line}: `}${f.title}: ${f.message}`);
  }
  lines.push('');
  if (result.causes.length === 0)
    lines.push('The draft changes nothing crawlers do on the watched pages.');
  else {
    lines.push(`What the draft changes (${result.causes.length}):`);
    lines.push(
      ...causeLines(result.causes, explainContext(report, context.at), {
        all: false,
        indent: '  ',
        more: '--format json lists them',
      }),
    );
  }
  return lines.join('\n') + '\n';
}

/** The JSON report. */
export function gateJson(report: GateReport, context: GateReportContext): string {
  const findings = gateFindings(report, context);
  const { result } = report;
  const explain = explainContext(report, context.at);
  return (
    JSON.stringify(
      {
        passed: result.passed,
        exitCode: result.passed ? 0 : 1,
        summary: gateHeadline(report, findings),
        file: context.file,
        site: { origin: report.site.origin, name: report.site.name },
        live: {
          url: report.live.url,
          status: report.live.status,
          error: report.live.error,
          detail: report.live.errorDetail,
          redirect: report.live.redirect,
          read: result.live.read,
        },
        draft: result.draft,
        intent: {
          from: report.site.intent.from,
          state: result.intent.state,
          judged: result.intent.judged,
          violationCount: result.intent.violationCount,
          reason: result.intent.reason,
          liveState: result.liveIntent.state,
          violations: result.violations.map((v) => ({
            url: v.url,
            agent: v.agent,
            expected: v.expected,
            line: v.cause?.type === 'rule' ? v.cause.line : null,
            why: violationCause(v),
            live: v.live,
          })),
        },
        urlSet: report.urlSet,
        coverage:
          result.coverage === null
            ? null
            : {
                urls: result.coverage.urls,
                changes: result.coverage.causes.map((c) => ({
                  agents: c.agents,
                  newlyDisallowed: c.newlyDisallowed,
                  newlyAllowed: c.newlyAllowed,
                  significant: c.significant,
                  prefixes: c.prefixes,
                  rules: c.rules,
                  samples: c.samples,
                })),
              },
        findings,
        changes: result.causes.map((cause) => {
          const said = explainCause(cause, explain, Number.MAX_SAFE_INTEGER);
          return {
            type: cause.type,
            title: said.title,
            consequence: said.consequence,
            pages: said.lines,
          };
        }),
      },
      null,
      2,
    ) + '\n'
  );
}

/** Characters XML 1.0 cannot carry at all (escaped or not): dropped from hostile text. */
// eslint-disable-next-line no-control-regex
const NOT_XML = /[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu;

function xml(text: string): string {
  return text
    .replace(NOT_XML, '\ufffd')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

interface TestCase {
  readonly name: string;
  readonly failure?: { readonly type: string; readonly message: string; readonly text: string };
  readonly skipped?: string;
}

/**
 * The JUnit report: a test case per watched page (its crawlers as intended), per crawler
 * over the sitemap URL set, and one for the file itself; warnings and what the draft
 * changes in the suite's system-out.
 */
export function gateJunit(report: GateReport, context: GateReportContext): string {
  const findings = gateFindings(report, context);
  const { result, site } = report;
  const cases: TestCase[] = [];
  const fileError = findings.find((f) => f.kind === 'file');
  cases.push({
    name: 'the draft is read as robots.txt',
    ...(fileError === undefined
      ? {}
      : { failure: { type: 'file', message: fileError.message, text: fileError.message } }),
  });
  // Each page with all its differing cells (the text report lists the first 200).
  const byUrl = new Map<string, GateViolation[]>();
  for (const v of result.everyViolation) {
    const cells = byUrl.get(v.url);
    if (cells === undefined) byUrl.set(v.url, [v]);
    else cells.push(v);
  }
  // Every watched page for every crawler, as one block (a draft that shuts the site):
  // each page fails with it said whole, then its own crawlers.
  const { grid } = result.intent;
  const whole =
    grid !== undefined &&
    grid.pathCount === new Set(site.watches.map(pathOf)).size &&
    grid.agentCount === new Set(site.agents.map((a) => a.token)).size
      ? `All ${result.intent.violationCount} watched page × crawler pairs differ from the intent as one block: ${intentLead('not-as-intended', result.violations, result.intent.violationCount, undefined, grid)}.`
      : undefined;
  for (const url of site.watches) {
    const cells = byUrl.get(url) ?? [];
    const name = `as intended: ${url}`;
    if (cells.length === 0) {
      cases.push({ name });
      continue;
    }
    const listed = intentFindings(cells, cells.length).map((f) => f.message);
    const message = whole ?? listed[0]!;
    const text = (whole === undefined ? listed : [whole, ...listed]).join('\n');
    cases.push({ name, failure: { type: 'intent', message, text } });
  }
  for (const agent of site.agents) {
    const name = `sitemap URL set: ${agent.token}`;
    if (result.coverage === null) {
      cases.push({
        name,
        skipped: site.sitemaps === 'off' ? 'sitemaps are off for this site' : 'not read',
      });
      continue;
    }
    const cause = result.coverage.causes.find(
      (c) => c.agents.includes(agent.token) && c.significant && c.newlyDisallowed > 0,
    );
    if (cause === undefined) {
      cases.push({ name });
      continue;
    }
    const said = coverageFindings(report, cause, context.at);
    cases.push({
      name,
      failure: {
        type: 'coverage',
        message: coverageTotal(report, cause),
        text: said
          .map((f) => `${f.line === null ? '' : `line ${f.line}: `}${f.message}`)
          .join('\n'),
      },
    });
  }
  const failures = cases.filter((c) => c.failure !== undefined).length;
  const skipped = cases.filter((c) => c.skipped !== undefined).length;
  const suite = `robots.txt draft for ${site.origin}`;
  const out = gateText(report, context);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="robowatch gate" tests="${cases.length}" failures="${failures}" errors="0" skipped="${skipped}">`,
    `  <testsuite name="${xml(suite)}" tests="${cases.length}" failures="${failures}" errors="0" skipped="${skipped}" timestamp="${context.at.toISOString().slice(0, 19)}">`,
    ...cases.map((c) => {
      const open = `    <testcase classname="${xml(`robowatch.gate.${new URL(site.origin).host}`)}" name="${xml(c.name)}"`;
      if (c.failure !== undefined)
        return `${open}>\n      <failure type="${xml(c.failure.type)}" message="${xml(c.failure.message)}">${xml(c.failure.text)}</failure>\n    </testcase>`;
      if (c.skipped !== undefined)
        return `${open}>\n      <skipped message="${xml(c.skipped)}"/>\n    </testcase>`;
      return `${open}/>`;
    }),
    `    <system-out>${xml(out)}</system-out>`,
    '  </testsuite>',
    '</testsuites>',
  ];
  return lines.join('\n') + '\n';
}

/** A workflow command's message: %, CR and LF escaped. */
function ghData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** A workflow command's property: also : and , escaped. */
function ghProperty(text: string): string {
  return ghData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/**
 * GitHub Actions workflow commands: an annotation per finding on the draft's line, then
 * the verdict as plain lines in the log.
 */
export function gateGithub(report: GateReport, context: GateReportContext): string {
  const findings = gateFindings(report, context);
  const file = context.file === '-' ? null : context.file;
  const lines = findings.map((f) => {
    const props = [
      ...(file === null ? [] : [`file=${ghProperty(file)}`]),
      ...(file === null || f.line === null ? [] : [`line=${f.line}`]),
      `title=${ghProperty(`robowatch gate: ${f.title}`)}`,
    ];
    return `::${f.severity} ${props.join(',')}::${ghData(f.message)}`;
  });
  lines.push(gateHeadline(report, findings));
  return lines.join('\n') + '\n';
}

/** The report in the chosen format. */
export function gateReport(
  format: GateFormat,
  report: GateReport,
  context: GateReportContext,
): string {
  switch (format) {
    case 'text':
      return gateText(report, context);
    case 'json':
      return gateJson(report, context);
    case 'junit':
      return gateJunit(report, context);
    case 'github':
      return gateGithub(report, context);
  }
}
