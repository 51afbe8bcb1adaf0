import { createReadStream } from 'node:fs';
import { resolve } from 'node:path';
import { readProblem } from '../lib/errors.js';
import { textProblem } from '../lib/text-bytes.js';
import { checkedFileOf, ConfigError, parseCheckedConfig } from './config.js';
import { loadValidation } from './validation.js';
import type { Config } from './config.js';
import type { ConfigFile } from './schema.js';
import { CACHED_FROM_BYTES, cacheDirectory, TreeCache } from './tree-cache.js';

/** Where the configuration comes from when neither --config nor ROBOWATCH_CONFIG says. */
export const DEFAULT_CONFIG_PATH = 'config/robowatch.yaml';

/**
 * The largest configuration file read: 100,000 sites sharing a watch list take 5 MB; a
 * larger file (a mistake, or a hostile one sent with SIGHUP) is refused, not read whole.
 */
export const MAX_CONFIG_BYTES = 64 * 1024 * 1024;

export interface LoadOptions {
  /** --config, if given; a relative path names a file in `cwd`. */
  readonly path?: string | undefined;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly version: string;
  /**
   * The bundled build's name (a hash of its sources), which lets the validated form of a
   * large file be kept between commands; absent when running from the sources.
   */
  readonly build?: string | undefined;
}

/** Reads and validates the configuration file; throws ConfigError with a one-line cause. */
export async function loadConfig(options: LoadOptions): Promise<Config> {
  const file = options.path ?? options.env['ROBOWATCH_CONFIG'] ?? DEFAULT_CONFIG_PATH;
  let bytes: Buffer;
  try {
    bytes = await readBounded(resolve(options.cwd, file), MAX_CONFIG_BYTES);
  } catch (error) {
    throw new ConfigError(`${file}: cannot read the configuration: ${readProblem(error)}`);
  }
  if (bytes.length > MAX_CONFIG_BYTES)
    throw new ConfigError(
      `${file}: the configuration is larger than ${MAX_CONFIG_BYTES / 1024 / 1024} MiB; add large lists of sites with robowatch sites import instead`,
    );
  const problem = textProblem(bytes);
  if (problem !== undefined) throw new ConfigError(`${file}: the configuration ${problem}`);
  const text = bytes.toString('utf8');
  const context = { file, cwd: options.cwd, env: options.env, version: options.version };
  // A large file's YAML tree, and any file's validated form (a bundled build's), are kept
  // between commands (tree-cache.ts).
  const large = bytes.length >= CACHED_FROM_BYTES;
  const directory = large || options.build !== undefined ? cacheDirectory(options.env) : undefined;
  if (directory === undefined) return (await loadValidation()).parseConfig(text, context);
  const cache = new TreeCache(directory, file, options.cwd, bytes, options.version, options.build);
  const kept = await cache.read();
  if (kept?.kind === 'checked') {
    try {
      return parseCheckedConfig(kept.value as ConfigFile, context);
    } catch (error) {
      // The environment's errors are the file's; an entry this build cannot resolve (one
      // edited by hand) is passed over like one cut short: the file is parsed again.
      if (error instanceof ConfigError) throw error;
    }
  }
  // Validated here, not kept: the YAML reader and the schema are loaded now.
  const { parseConfig, readConfigTree } = await loadValidation();
  const tree = kept?.kind === 'tree' ? kept.value : readConfigTree(text, file);
  const config = parseConfig(text, context, tree);
  // The validated form if this build keeps it, else (or when it cannot be kept) the tree.
  const checked =
    cache.keepsChecked && (await cache.write({ kind: 'checked', value: checkedFileOf(config) }));
  if (!checked && large && kept?.kind !== 'tree') await cache.write({ kind: 'tree', value: tree });
  return config;
}

/** The file's first `limit` + 1 bytes at most (one more than allowed tells it is larger). */
async function readBounded(file: string, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of createReadStream(file, { end: limit })) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
