import { ConfigError } from './errors.js';
import { interpolate } from './notify.js';
import type { ConfigFile } from './schema.js';

export interface WebConfig {
  readonly host: string;
  /** 0: any free port (tests). */
  readonly port: number;
  /** Every request needs it when set; changing anything needs it always. */
  readonly token: string | undefined;
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
  return { host, port, token: token === '' ? undefined : token };
}
