import { ConfigError } from './errors.js';
import { interpolate } from './notify.js';
import type { ConfigFile } from './schema.js';
import type { SsoMapping } from '../policy/access-roles.js';

export interface WebConfig {
  readonly host: string;
  /** 0: any free port (tests). */
  readonly port: number;
  /** Every request needs it when set; changing anything needs it always. */
  readonly token: string | undefined;
  /** Where people reach the web UI (no trailing slash), for links; undefined: not said. */
  readonly publicUrl: string | undefined;
  /** The client's address is the last X-Forwarded-For entry (a reverse proxy adds it). */
  readonly trustProxy: boolean;
  /** Single sign-on with OpenID Connect; undefined: names and passwords only. */
  readonly sso: SsoConfig | undefined;
}

/** `web.sso`, resolved: the client secret read from the environment. */
export interface SsoConfig extends SsoMapping {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string | undefined;
  readonly label: string;
  readonly scopes: readonly string[];
  readonly nameClaim: string;
  readonly groupsClaim: string;
}

const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\]|localhost)$/;

/** `web.sso`: https, or http on this machine only (a provider under test or development). */
function resolveSso(sso: ConfigFile['web']['sso'], env: Env, where: string): SsoConfig | undefined {
  if (sso === undefined) return undefined;
  const issuer = new URL(sso.issuer);
  if (issuer.protocol !== 'https:' && !LOOPBACK.test(issuer.hostname))
    throw new ConfigError(
      `${where}.sso.issuer: must be an https URL (http only on this machine), not "${sso.issuer}"`,
    );
  const secret =
    sso.clientSecret === undefined
      ? ''
      : interpolate(sso.clientSecret, env, `${where}.sso.clientSecret`);
  return {
    issuer: sso.issuer,
    clientId: sso.clientId,
    clientSecret: secret === '' ? undefined : secret,
    label: sso.label,
    scopes: sso.scopes.includes('openid') ? sso.scopes : ['openid', ...sso.scopes],
    nameClaim: sso.nameClaim,
    groupsClaim: sso.groupsClaim,
    roles: sso.roles,
    tags: sso.tags,
  };
}

type Env = Readonly<Record<string, string | undefined>>;

/** A token shorter than this is a password someone could guess. */
const MIN_TOKEN_LENGTH = 16;

/** `web`: where to listen ("HOST:PORT", "[::1]:PORT" or a port) and the access token. */
export function resolveWeb(web: ConfigFile['web'], env: Env, file: string): WebConfig {
  const where = `${file}: web`;
  const listen = String(web.listen);
  const match = /^(?:(\[[0-9a-fA-F:.]+\]|[^:[\]\s]+):)?(\d{1,5})$/.exec(listen);
  const port = match ? Number(match[2]) : NaN;
  if (match === null || port > 65_535) {
    throw new ConfigError(
      `${where}.listen: must be HOST:PORT (e.g. 127.0.0.1:8080 or 0.0.0.0:8080) or a port, not "${listen}"`,
    );
  }
  const host = (match[1] ?? '127.0.0.1').replace(/^\[(.*)\]$/, '$1');
  const token = web.token === undefined ? '' : interpolate(web.token, env, `${where}.token`);
  if (token !== '' && token.length < MIN_TOKEN_LENGTH) {
    throw new ConfigError(
      `${where}.token: must be at least ${MIN_TOKEN_LENGTH} characters (e.g. openssl rand -hex 32)`,
    );
  }
  const publicUrl =
    web.publicUrl === undefined ? '' : interpolate(web.publicUrl, env, `${where}.publicUrl`);
  if (publicUrl !== '') {
    const parsed = URL.canParse(publicUrl) ? new URL(publicUrl) : undefined;
    if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:'))
      throw new ConfigError(
        `${where}.publicUrl: must be the http(s) address of the web UI (e.g. https://robowatch.example.com), not "${publicUrl}"`,
      );
    if (parsed.search !== '' || parsed.hash !== '')
      throw new ConfigError(`${where}.publicUrl: must have no query or fragment`);
  }
  return {
    host,
    port,
    token: token === '' ? undefined : token,
    publicUrl: publicUrl === '' ? undefined : publicUrl.replace(/\/+$/, ''),
    trustProxy: web.trustProxy,
    sso: resolveSso(web.sso, env, where),
  };
}

/**
 * Where links in alerts and digests point: web.publicUrl, else the address this process
 * serves the web UI at, else web.listen as seen from this machine.
 */
export function webBaseUrl(web: WebConfig, served?: string): string {
  if (web.publicUrl !== undefined) return web.publicUrl;
  if (served !== undefined) return served;
  const host =
    web.host === '0.0.0.0' || web.host === '::'
      ? 'localhost'
      : web.host.includes(':')
        ? `[${web.host}]`
        : web.host;
  return `http://${host}:${web.port}`;
}
