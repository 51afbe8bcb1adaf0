import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { BodyData } from 'hono/utils/body';
import type { WebEnv } from '../auth.js';

/**
 * A posted form's fields. A body its Content-Type calls a form but that is none (a
 * multipart body without its boundary, say) is the sender's mistake: a 400 that says so,
 * not an internal error.
 */
export async function postedForm(c: Context<WebEnv>): Promise<BodyData> {
  try {
    return await c.req.parseBody();
  } catch {
    // The type as sent, when it is one (the header is the sender's text).
    const type = c.req.header('content-type')?.split(';')[0]?.trim() ?? '';
    const named = /^[\w.+-]{1,60}\/[\w.+-]{1,60}$/.test(type) ? type : 'form';
    throw new HTTPException(400, {
      message: `the form could not be read: its body is not the ${named} its Content-Type names`,
    });
  }
}
