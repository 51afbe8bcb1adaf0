import type { FC } from 'hono/jsx';
import { Layout } from './components.js';

/** A page for an error: what went wrong, in one line, and the way back. */
export const ErrorPageView: FC<{ status: number; message: string; signedIn: boolean }> = (
  props,
) => (
  <Layout title={String(props.status)} signedIn={props.signedIn}>
    <h1>{errorHeading(props.status)}</h1>
    <p class="error-message">{props.message}</p>
    <p>
      <a href="/">Back to the sites</a>
    </p>
  </Layout>
);

/**
 * What the page's heading says happened: robowatch failing ("Something went wrong") only
 * for a 5xx; a request it refused (a form's mistake, a conflict) was not done, and the
 * message says why.
 */
function errorHeading(status: number): string {
  if (status === 404) return 'Not found';
  if (status === 401) return 'Sign in';
  if (status === 403) return 'Not allowed';
  return status < 500 ? 'Not done' : 'Something went wrong';
}

/** Why the last sign-in failed, as the form says it. */
export type LoginFailure = 'token' | 'user' | 'throttled' | 'sso';

/**
 * The sign-in form, for browsers (API clients send Authorization: Bearer): a user's name
 * and password, and the access token (web.token) where one is configured.
 */
export const LoginPageView: FC<{
  failed: LoginFailure | undefined;
  next: string;
  withUsers: boolean;
  withToken: boolean;
  message?: string | undefined;
  /** The single sign-on button's words ("Sign in with …"); undefined: none configured. */
  sso?: string | undefined;
}> = ({ failed, next, withUsers, withToken, message, sso }) => (
  <Layout title="Sign in">
    <h1>Sign in</h1>
    {sso === undefined ? null : (
      // A link, not a form: the page's form-action policy would stop the redirect to the provider.
      <p>
        <a class="button" href={`/login/oidc?next=${encodeURIComponent(next)}`}>
          Sign in with {sso}
        </a>
      </p>
    )}
    {failed === 'token' ? (
      <p class="error-message">That token is not the one configured (web.token).</p>
    ) : failed === 'user' ? (
      <p class="error-message">That name and password do not match a user.</p>
    ) : failed === 'throttled' ? (
      <p class="error-message">{message ?? 'Too many failed sign-ins: wait and try again.'}</p>
    ) : failed === 'sso' ? (
      <p class="error-message">{message ?? 'Single sign-on did not sign you in.'}</p>
    ) : null}
    {withUsers ? (
      <form method="post" action="/login">
        <input type="hidden" name="next" value={next} />
        <label>
          Name
          <input type="text" name="name" autocomplete="username" required />
        </label>
        <label>
          Password
          <input type="password" name="password" autocomplete="current-password" required />
        </label>
        <p>
          <button type="submit">Sign in</button>
        </p>
      </form>
    ) : null}
    {withToken ? (
      <form method="post" action="/login">
        <input type="hidden" name="next" value={next} />
        {withUsers ? <h2>Or with the access token</h2> : null}
        <label>
          Access token (web.token)
          <input type="password" name="token" autocomplete="current-password" />
        </label>
        <p>
          <button type="submit">{withUsers ? 'Sign in with the token' : 'Sign in'}</button>
        </p>
      </form>
    ) : null}
    {!withUsers && !withToken && sso === undefined ? (
      <p>
        This robowatch has no users and no access token: everyone may read it, nobody may change it.
        Add a user with <code>robowatch users add NAME --role admin</code>.
      </p>
    ) : null}
  </Layout>
);
