import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { BodyData } from 'hono/utils/body';
import { unstorableText } from '../../config/text.js';
import type { WebEnv } from '../auth.js';

/**
 * A posted form's fields. A body its Content-Type calls a form but that is none (a
 * multipart body without its boundary, say) is the sender's mistake: a 400 that says so,
 * not an internal error. Unless the route keeps none of it (`stored: false`), a field
 * the database cannot keep (a NUL character) is refused here, named, for every form.
 */
export async function postedForm(
  c: Context<WebEnv>,
  { stored = true }: { readonly stored?: boolean } = {},
): Promise<BodyData> {
  let form: BodyData;
  try {
    form = await c.req.parseBody();
  } catch {
    // The type as sent, when it is one (the header is the sender's text).
    const type = c.req.header('content-type')?.split(';')[0]?.trim() ?? '';
    const named = /^[\w.+-]{1,60}\/[\w.+-]{1,60}$/.test(type) ? type : 'form';
    throw new HTTPException(400, {
      message: `the form could not be read: its body is not the ${named} its Content-Type names`,
    });
  }
  if (stored)
    for (const [name, value] of Object.entries(form)) {
      // A file's bytes are read as bytes; only text fields are kept as text.
      const problem = typeof value === 'string' ? unstorableText(value) : undefined;
      if (problem !== undefined)
        throw new HTTPException(400, { message: `${fieldName(name)}: ${problem}` });
    }
  return form;
}

/** A field's name as the sender wrote it, shown safely (it is the sender's text too). */
function fieldName(name: string): string {
  return /^[\w.[\]-]{1,60}$/.test(name) ? name : 'a field';
}
