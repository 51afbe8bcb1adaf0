/**
 * The robots.txt engine: pure functions over values, no I/O and no Node APIs.
 * Parse once, compile per agent, evaluate many URLs.
 */
export { errorFindings, parseRobotsTxt } from './parse.js';
export type {
  Directive,
  GroupAgent,
  OtherDirective,
  ParseOptions,
  RobotsGroup,
  RobotsRule,
  RobotsTxt,
  Sitemap,
} from './parse.js';
export { compileAgent, prepareUrl, selectGroups } from './compile.js';
export type {
  AgentRules,
  CompileOptions,
  DecidingRule,
  PreparedUrl,
  SharedMatchers,
  Verdict,
} from './compile.js';
export {
  DEFAULT_PROFILE,
  MAX_LINE_BYTES,
  MAX_ROBOTS_BYTES,
  PROFILES,
  isProfile,
} from './profiles.js';
export type { Profile } from './profiles.js';
export type { LintCode, LintFinding, LintSeverity } from './lint.js';
export { getPathParamsQuery, ROBOTS_TXT_PATH } from './url.js';
export { reportLines } from './lines.js';
export type { LineReport } from './lines.js';
export { crawlerTokenIn, extractProductToken, isValidProductToken } from './tokenize.js';
export { escapePatternGoogle } from './pattern.js';
export { sniffContent } from './sniff.js';
export type { NotRobotsTxt } from './sniff.js';
export { CONTENT_SIGNALS, USAGE_CATEGORIES } from './usage.js';
export type {
  ContentSignal,
  ContentSignalKey,
  LicenseLine,
  Preferences,
  UsageCategory,
  UsageLines,
  UsageRule,
} from './usage.js';
