import type { Context } from 'hono';
import type { JSX } from 'hono/jsx/jsx-runtime';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ClockContext } from '../pages/components.js';
import type { WebEnv } from '../auth.js';
import type { WebDeps } from '../deps.js';

export type Render = (
  c: Context<WebEnv>,
  element: JSX.Element,
  status?: ContentfulStatusCode,
) => Response | Promise<Response>;

/** Renders pages with their times in the configured time zone, with how long ago. */
export function pageRenderer(deps: WebDeps): Render {
  return (c, element, status) =>
    c.html(
      <ClockContext.Provider value={{ timeZone: deps.config.schedule.timezone, now: deps.now() }}>
        {element}
      </ClockContext.Provider>,
      status,
    );
}
