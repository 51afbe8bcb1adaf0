/** Causes as the pages show them: what changed, what crawlers do now, which pages it touches. */
import type { FC } from 'hono/jsx';
import type { ChangeCause } from '../../policy/changes/cause-model.js';
import {
  collapsePairs,
  describeCrawlers,
  describeUrls,
} from '../../policy/wording/explain-pairs.js';
import { explainCause } from '../../policy/wording/explain.js';
import { Rich } from './components.js';
import { grouped } from '../../policy/wording/words.js';

const LINES = 5;
const DETAILS = 10;

/** How serious a cause reads: a problem (red), a recovery (green), or a detail. */
function tone(cause: ChangeCause): 'problem' | 'recovery' | 'detail' {
  const blocks = cause.pairs.some((p) => p.flipped && !p.allowed);
  if (cause.type === 'fetch_status')
    return !cause.effectChanged ? 'detail' : cause.after.access === 'ok' ? 'recovery' : 'problem';
  if (cause.type === 'file_condition') return cause.after === 'robots' ? 'recovery' : 'problem';
  return blocks ? 'problem' : 'detail';
}

/** One cause, with its watched pages (each linking to the verdict's history). */
export const CauseItem: FC<{
  cause: ChangeCause;
  siteId: number;
  agents: readonly string[];
  at: Date;
  full?: boolean;
}> = ({ cause, siteId, agents, at, full }) => {
  const words = explainCause(cause, { agents, at }, 0);
  const readers =
    cause.type === 'rule' || cause.type === 'rules'
      ? { readers: { agents: cause.readers, group: cause.group } }
      : {};
  const lines = collapsePairs(cause.pairs);
  const shown = full ? lines : lines.slice(0, LINES);
  const details = full ? words.details : words.details.slice(0, DETAILS);
  return (
    <li class={`cause cause-${tone(cause)}`}>
      <strong>
        <Rich text={words.title} />
      </strong>
      {words.consequence === '' ? null : (
        <div class="consequence">
          <Rich text={words.consequence} />
        </div>
      )}
      {shown.length === 0 ? null : (
        <ul class="pairs">
          {shown.map((line) => {
            const verb = line.flipped
              ? `now ${line.allowed ? 'allowed' : 'disallowed'}`
              : `${line.allowed ? 'allowed' : 'disallowed'} (differs from the file before the outage)`;
            return (
              <li>
                <span class={line.allowed ? 'verdict-allowed' : 'verdict-disallowed'}>{verb}</span>{' '}
                for {describeCrawlers(line.agents, { agents, ...readers })}:{' '}
                {line.urls.slice(0, 4).map((url, i) => (
                  <>
                    {i > 0 ? ', ' : ''}
                    <a
                      class="mono"
                      href={`/sites/${siteId}/verdicts?${new URLSearchParams({ url, agent: line.agents[0]! }).toString()}`}
                    >
                      {describeUrls([url])}
                    </a>
                  </>
                ))}
                {line.urls.length > 4 ? ` and ${line.urls.length - 4} more` : ''}
              </li>
            );
          })}
          {lines.length > shown.length ? (
            <li class="muted">and {lines.length - shown.length} more lines of pages</li>
          ) : null}
        </ul>
      )}
      {details.length === 0 ? null : (
        <ul class="details mono">
          {details.map((d) => (
            <li>{d}</li>
          ))}
          {words.detailsMore + words.details.length - details.length > 0 ? (
            <li class="muted">
              and {grouped(words.detailsMore + words.details.length - details.length)} more (the
              text diff below has them all)
            </li>
          ) : null}
        </ul>
      )}
    </li>
  );
};
