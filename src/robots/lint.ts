/**
 * Lint findings: things in a robots.txt file that a site owner should know about,
 * each with the line it is on. Findings never change how the file is evaluated.
 */

export type LintSeverity = 'error' | 'warning' | 'info';

export type LintCode =
  | 'bom'
  | 'utf16'
  | 'binary'
  | 'invalid-utf8'
  | 'html'
  | 'content-past-limit'
  | 'line-too-long'
  | 'nul-byte'
  | 'unparsable-line'
  | 'missing-colon'
  | 'accepted-typo'
  | 'unknown-key'
  | 'unsupported-key'
  | 'rule-before-user-agent'
  | 'path-not-absolute'
  | 'empty-user-agent'
  | 'user-agent-not-token'
  | 'no-product-token'
  | 'blank-line-in-group'
  | 'sitemap-not-absolute'
  | 'usage-malformed'
  | 'usage-outside-group'
  | 'more-findings';

export interface LintFinding {
  readonly code: LintCode;
  readonly severity: LintSeverity;
  /** 1-based line number the finding is about. */
  readonly line: number;
  readonly message: string;
}

/** At most this many findings of one code are kept; the rest are counted. */
const MAX_PER_CODE = 50;

/** Collects findings, keeping a hostile file's thousands of bad lines to a readable list. */
/** What an HTML page's lines (markup, CSS, scripts) would each be reported as. */
const MARKUP_CODES: ReadonlySet<LintCode> = new Set([
  'missing-colon',
  'unparsable-line',
  'unknown-key',
]);

/** What is still said of a file that is not text: what it is, and how much of it counts. */
const FILE_CODES: ReadonlySet<LintCode> = new Set(['utf16', 'binary', 'content-past-limit']);

export class LintCollector {
  readonly #findings: LintFinding[] = [];
  readonly #counts = new Map<LintCode, number>();

  /** `enabled: false` collects nothing, for callers that only evaluate URLs. */
  constructor(readonly enabled = true) {}

  /** The file is an HTML page, reported once. */
  #page = false;

  /**
   * Says nothing more of lines that are not rules: the file is an HTML page, and its
   * markup, inline CSS and scripts would each be "no colon" or "unknown key". What the
   * page has that crawlers do read (a line that happens to be a rule) is still said.
   */
  htmlPage(): void {
    this.#page = true;
  }

  /** The file is not text (binary data, UTF-16): it is reported once, not line by line. */
  #notText = false;

  /**
   * Says nothing more of the file's lines: crawlers find no rules in binary data or in
   * UTF-16, so each line's syntax (a screenful of "no colon" and "unknown key" quoting its
   * bytes) says nothing the one finding does not.
   */
  notText(): void {
    this.#notText = true;
  }

  add(code: LintCode, severity: LintSeverity, line: number, message: string): void {
    if (!this.enabled) return;
    if (this.#notText && !FILE_CODES.has(code)) return;
    if (this.#page && MARKUP_CODES.has(code)) return;
    const count = (this.#counts.get(code) ?? 0) + 1;
    this.#counts.set(code, count);
    if (count <= MAX_PER_CODE) this.#findings.push({ code, severity, line, message });
  }

  /** The findings in line order, with one summary per code that overflowed. */
  finish(): LintFinding[] {
    const findings = [...this.#findings];
    for (const [code, count] of this.#counts) {
      if (count > MAX_PER_CODE) {
        const last = findings.findLast((f) => f.code === code);
        findings.push({
          code: 'more-findings',
          severity: 'info',
          line: last?.line ?? 1,
          message: `${count - MAX_PER_CODE} more "${code}" findings are not listed.`,
        });
      }
    }
    return findings.sort((a, b) => a.line - b.line);
  }
}

/** Keys that some crawlers honour but that the profiles' matchers ignore. */
export const KNOWN_OTHER_KEYS: ReadonlyMap<string, string> = new Map([
  ['crawl-delay', 'Crawl-delay is ignored by Google; Bing and Yandex honour it.'],
  ['host', 'Host was a Yandex extension; Google ignores it.'],
  ['clean-param', 'Clean-param is a Yandex extension; Google ignores it.'],
  ['request-rate', 'Request-rate is a non-standard extension that Google ignores.'],
  ['visit-time', 'Visit-time is a non-standard extension that Google ignores.'],
  ['noindex', 'Noindex in robots.txt has not been supported by Google since 2019.'],
  ['nofollow', 'Nofollow in robots.txt has never been supported by Google.'],
  ['noarchive', 'Noarchive in robots.txt has never been supported by Google.'],
  ['content-signal', 'Content-Signal is a Cloudflare extension that crawlers may ignore.'],
  ['content-usage', 'Content-Usage is an IETF AIPREF draft that crawlers may ignore.'],
  ['license', 'License (RSL) points to licensing terms; crawlers may ignore it.'],
]);
