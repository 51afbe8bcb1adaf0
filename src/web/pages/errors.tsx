import type { FC } from 'hono/jsx';
import { Layout } from './components.js';

/** A page for an error: what went wrong, in one line, and the way back. */
export const ErrorPageView: FC<{ status: number; message: string; signedIn: boolean }> = (
  props,
) => (
  <Layout title={String(props.status)} signedIn={props.signedIn}>
    <h1>
      {props.status === 404
        ? 'Not found'
        : props.status === 401
          ? 'Sign in'
          : 'Something went wrong'}
    </h1>
    <p class="error-message">{props.message}</p>
    <p>
      <a href="/">Back to the sites</a>
    </p>
  </Layout>
);

/** The sign-in form, for browsers (API clients send Authorization: Bearer). */
export const LoginPageView: FC<{ failed: boolean; next: string }> = ({ failed, next }) => (
  <Layout title="Sign in">
    <h1>Sign in</h1>
    {failed ? <p class="error-message">That token is not the one configured (web.token).</p> : null}
    <form method="post" action="/login">
      <input type="hidden" name="next" value={next} />
      <label>
        Access token (web.token)
        <input type="password" name="token" autocomplete="current-password" />
      </label>
      <p>
        <button type="submit">Sign in</button>
      </p>
    </form>
  </Layout>
);
