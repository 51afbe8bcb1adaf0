import type { ChangeCause } from '../policy/changes/cause-model.js';
import { explainCause } from '../policy/wording/explain.js';
import type { ExplainContext } from '../policy/wording/words.js';
import { visibleControls } from '../policy/wording/format.js';
import { grouped } from '../policy/wording/words.js';

/** How much of each cause is printed unless --all. */
export const CAUSES_SHOWN = 10;
const PAIR_LINES = 3;
const DETAILS = 5;

/**
 * Causes as indented lines: each one's title, what crawlers do now, the watched pages it
 * changed and a few of its rules; past `CAUSES_SHOWN` causes (unless `all`), a line that
 * says how many more there are and where to see them.
 */
export function causeLines(
  causes: readonly ChangeCause[],
  context: ExplainContext,
  options: { readonly all: boolean; readonly indent: string; readonly more: string },
): string[] {
  const { all, indent } = options;
  const shown = all ? causes : causes.slice(0, CAUSES_SHOWN);
  const lines: string[] = [];
  for (const cause of shown) {
    const e = explainCause(cause, context, all ? Number.MAX_SAFE_INTEGER : PAIR_LINES);
    lines.push(`${indent}${terminalLine(e.title)}`);
    const detail = [
      ...(e.consequence === '' ? [] : [e.consequence]),
      ...e.lines,
      ...(e.more > 0 ? [`and ${e.more} more watched page × crawler pairs`] : []),
      ...(all ? e.details : e.details.slice(0, DETAILS)),
      ...moreLine((all ? 0 : Math.max(0, e.details.length - DETAILS)) + e.detailsMore),
    ];
    for (const d of detail) lines.push(`${indent}  ${terminalLine(d)}`);
  }
  const hidden = causes.length - shown.length;
  if (hidden > 0)
    lines.push(`${indent}and ${hidden} more change${hidden === 1 ? '' : 's'} (${options.more})`);
  return lines;
}

/**
 * One line of a cause for a terminal: what a file quoted in it holds (an ESC, a BEL) shown
 * as an escape (\x1b), as lint, gate and diff show it, not hidden as a space.
 */
function terminalLine(text: string): string {
  return visibleControls(text.trim());
}

function moreLine(more: number): string[] {
  return more > 0 ? [`and ${grouped(more)} more`] : [];
}
