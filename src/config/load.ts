import { readFile } from 'node:fs/promises';
import { ConfigError, parseConfig } from './config.js';
import type { Config } from './config.js';

/** Where the configuration comes from when neither --config nor ROBOWATCH_CONFIG says. */
export const DEFAULT_CONFIG_PATH = 'config/robowatch.yaml';

export interface LoadOptions {
  /** --config, if given. */
  readonly path?: string | undefined;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly version: string;
}

/** Reads and validates the configuration file; throws ConfigError with a one-line cause. */
export async function loadConfig(options: LoadOptions): Promise<Config> {
  const file = options.path ?? options.env['ROBOWATCH_CONFIG'] ?? DEFAULT_CONFIG_PATH;
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : (error as Error).message;
    throw new ConfigError(`${file}: cannot read the configuration: ${reason}`);
  }
  return parseConfig(text, { file, cwd: options.cwd, env: options.env, version: options.version });
}
