/** Your account (your keys, your password), the users (admins), and the audit log (admins). */
import type { FC } from 'hono/jsx';
import type { ApiKeyRecord, AuditEntry, UserRecord } from '../../monitor/accounts.js';
import { ROLES, ROLE_SCOPE, SCOPES, allows } from '../../policy/access-roles.js';
import type { Role, Scope } from '../../policy/access-roles.js';
import { Layout, Notice, Time } from './components.js';

export interface PageNotice {
  readonly text: string;
  readonly error?: boolean;
  /** An API key just made: shown this once. */
  readonly key?: string;
}

const NoticeOf: FC<{ notice: PageNotice | undefined }> = ({ notice }) =>
  notice === undefined ? null : (
    <Notice error={notice.error ?? false}>
      {notice.text}
      {notice.key === undefined ? null : (
        <>
          {' '}
          <code class="secret">{notice.key}</code>
        </>
      )}
    </Notice>
  );

const KeyRows: FC<{
  keys: readonly ApiKeyRecord[];
  revoke: (id: number) => string;
  owner: boolean;
}> = ({ keys, revoke, owner }) =>
  keys.length === 0 ? (
    <p>No API keys.</p>
  ) : (
    <div class="scroll">
      <table>
        <thead>
          <tr>
            {owner ? <th>User</th> : null}
            <th>Name</th>
            <th>Scope</th>
            <th>Starts with</th>
            <th>Made</th>
            <th>Expires</th>
            <th>Last used</th>
            <th></th>
          </tr>
        </thead>
        <tbody>
          {keys.map((k) => (
            <tr>
              {owner ? <td>{k.user}</td> : null}
              <td>{k.name}</td>
              <td>{k.scope}</td>
              <td>
                <code>{k.prefix}…</code>
              </td>
              <td>
                <Time date={k.createdAt} />
              </td>
              <td>{k.expiresAt === null ? 'never' : <Time date={k.expiresAt} />}</td>
              <td>{k.lastUsedAt === null ? 'never' : <Time date={k.lastUsedAt} />}</td>
              <td>
                {k.revokedAt !== null ? (
                  <>
                    revoked <Time date={k.revokedAt} />
                  </>
                ) : (
                  <form class="inline" method="post" action={revoke(k.id)}>
                    <button type="submit">Revoke</button>
                  </form>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );

/** Who you are, your keys, your password, signing out everywhere. */
export const AccountPageView: FC<{
  name: string;
  role: Role | null;
  scope: Scope;
  via: string;
  keys: readonly ApiKeyRecord[] | null;
  notice?: PageNotice | undefined;
}> = ({ name, role, scope, via, keys, notice }) => (
  <Layout title="Your account" signedIn>
    <h1>Your account</h1>
    <NoticeOf notice={notice} />
    <p>
      Signed in as <strong>{name}</strong>
      {role === null ? '' : `, ${role}`} ({via}): you may{' '}
      {scope === 'read'
        ? 'read everything'
        : scope === 'write'
          ? 'read everything and change sites, intent, presets and incidents'
          : 'do everything, users, keys, recipients and the audit log included'}
      .
    </p>
    {allows(scope, 'admin') ? (
      <p>
        <a href="/users">Users and their keys</a> · <a href="/audit">Audit log</a>
      </p>
    ) : null}
    {keys === null ? (
      <p>web.token is not a user: it has no keys or password of its own.</p>
    ) : (
      <>
        <h2>Your API keys</h2>
        <p>
          A script signs in as you with <code>Authorization: Bearer KEY</code>, with the key’s
          scope: <code>read</code> for dashboards and Prometheus.
        </p>
        <KeyRows keys={keys} revoke={(id) => `/account/keys/${id}/revoke`} owner={false} />
        <form method="post" action="/account/keys">
          <label>
            Name
            <input type="text" name="name" maxlength={100} placeholder="grafana" />
          </label>
          <label>
            Scope
            <select name="scope">
              {SCOPES.filter((s) => allows(role === null ? scope : ROLE_SCOPE[role], s)).map(
                (s) => (
                  <option value={s}>{s}</option>
                ),
              )}
            </select>
          </label>
          <label>
            Expires after (days, empty: never)
            <input type="number" name="days" min={1} max={3650} />
          </label>
          <p>
            <button type="submit">Make a key</button>
          </p>
        </form>
        <h2>Your password</h2>
        <form method="post" action="/account/password">
          <label>
            Current password
            <input type="password" name="current" autocomplete="current-password" required />
          </label>
          <label>
            New password (12 characters or more)
            <input type="password" name="password" autocomplete="new-password" required />
          </label>
          <p>
            <button type="submit">Change the password</button> (every other session ends)
          </p>
        </form>
        <h2>Sessions</h2>
        <form method="post" action="/account/sign-out-everywhere">
          <button type="submit">Sign out everywhere</button> (this browser too)
        </form>
      </>
    )}
  </Layout>
);

/** The users, their keys, and adding, changing and removing them. */
export const UsersPageView: FC<{
  users: readonly UserRecord[];
  keys: readonly ApiKeyRecord[];
  notice?: PageNotice | undefined;
}> = ({ users, keys, notice }) => (
  <Layout title="Users" signedIn>
    <h1>Users</h1>
    <NoticeOf notice={notice} />
    {users.length === 0 ? (
      <p>No users yet: web.token is the only way in.</p>
    ) : (
      <div class="scroll">
        <table>
          <thead>
            <tr>
              <th>Name</th>
              <th>Role and sites</th>
              <th>Signs in with</th>
              <th>Added</th>
              <th></th>
            </tr>
          </thead>
          <tbody>
            {users.map((u) => (
              <tr>
                <td>{u.name}</td>
                <td>
                  <form
                    class="inline"
                    method="post"
                    action={`/users/${encodeURIComponent(u.name)}/role`}
                  >
                    <select name="role" aria-label={`Role of ${u.name}`}>
                      {ROLES.map((r) => (
                        <option value={r} selected={r === u.role}>
                          {r}
                        </option>
                      ))}
                    </select>{' '}
                    <input
                      type="text"
                      name="tags"
                      value={u.tags.join(', ')}
                      placeholder="every site"
                      size={16}
                      aria-label={`Tags of the sites ${u.name} sees (empty: every site)`}
                    />{' '}
                    <button type="submit">Change</button>
                  </form>
                </td>
                <td>
                  {[u.hasPassword ? 'a password' : '', u.oidc === null ? '' : 'single sign-on']
                    .filter(Boolean)
                    .join(', ') || 'nothing'}
                </td>
                <td>
                  <Time date={u.createdAt} />
                </td>
                <td>
                  <form
                    class="inline"
                    method="post"
                    action={`/users/${encodeURIComponent(u.name)}/sign-out`}
                  >
                    <button type="submit">Sign out everywhere</button>
                  </form>{' '}
                  <form
                    class="inline"
                    method="post"
                    action={`/users/${encodeURIComponent(u.name)}/remove`}
                  >
                    <button type="submit">Remove {u.name}</button>
                  </form>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    )}
    <h2>Add a user</h2>
    <form method="post" action="/users">
      <label>
        Name
        <input type="text" name="name" maxlength={100} required />
      </label>
      <label>
        Role
        <select name="role">
          {ROLES.map((r) => (
            <option value={r}>{r}</option>
          ))}
        </select>
      </label>
      <label>
        Only the sites tagged (comma-separated; empty: every site; not for admins)
        <input type="text" name="tags" maxlength={1000} />
      </label>
      <label>
        Password (12 characters or more)
        <input type="password" name="password" autocomplete="new-password" required />
      </label>
      <p>
        <button type="submit">Add the user</button>
      </p>
    </form>
    <h2>API keys</h2>
    <KeyRows keys={keys} revoke={(id) => `/keys/${id}/revoke`} owner />
  </Layout>
);

const json = (value: unknown) =>
  value === null || value === undefined ? '' : JSON.stringify(value, null, 1);

/** Who changed what, newest first, by site and person. */
export const AuditPageView: FC<{
  entries: readonly AuditEntry[];
  site: number | undefined;
  actor: string | undefined;
  next: string | null;
}> = ({ entries, site, actor, next }) => (
  <Layout title="Audit log" signedIn>
    <h1>Audit log</h1>
    <p>
      Every change a person or key made{site === undefined ? '' : ` to site ${site}`}
      {actor === undefined ? '' : ` by ${actor}`}, newest first; secrets are hidden.
      {site !== undefined || actor !== undefined ? (
        <>
          {' '}
          <a href="/audit">All of it</a>
        </>
      ) : null}
    </p>
    {entries.length === 0 ? <p>Nothing recorded.</p> : <AuditTable entries={entries} />}
    {next === null ? null : (
      <p>
        <a href={next}>Older</a>
      </p>
    )}
  </Layout>
);

/** Audit entries, newest first: who, how, what, on which site, and the values. */
export const AuditTable: FC<{ entries: readonly AuditEntry[] }> = ({ entries }) => (
  <div class="scroll">
    <table>
      <thead>
        <tr>
          <th>When</th>
          <th>Who</th>
          <th>What</th>
          <th>On</th>
          <th>Before → after</th>
        </tr>
      </thead>
      <tbody>
        {entries.map((e) => (
          <tr>
            <td>
              <Time date={e.at} />
            </td>
            <td>
              <a href={`/audit?actor=${encodeURIComponent(e.actor)}`}>{e.actor}</a> ({e.via}
              {e.address === null ? '' : `, from ${e.address}`})
            </td>
            <td>{e.action}</td>
            <td>
              {e.siteId === null ? (
                (e.target ?? '')
              ) : (
                <a href={`/audit?site=${e.siteId}`}>{e.origin ?? e.target ?? `site ${e.siteId}`}</a>
              )}
            </td>
            <td>
              {e.before === null && e.after === null ? null : (
                <details>
                  <summary>values</summary>
                  <pre>{json(e.before)}</pre>
                  <pre>{json(e.after)}</pre>
                </details>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  </div>
);
