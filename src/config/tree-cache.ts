/**
 * A large configuration's parsed form, kept between commands. js-yaml reads a 1 MB file
 * (3,000 sites with their own watch lists) in about 0.2 s of CPU, and each `robowatch`
 * command, run by cron or a deploy pipeline, read it again; its tree written as JSON is
 * read back in a twentieth of that. The entry is of exactly these bytes (their SHA-256,
 * with robowatch's and js-yaml's versions): an edited file, another release or another
 * YAML reader parses the file again. Everything after the YAML (checks, defaults, the
 * environment) runs as for a file read afresh.
 *
 * A bundled build (`npm run build`) names itself by a hash of its sources and lockfile,
 * and keeps the file's validated form as well, of a file of any size: validating 3,000
 * sites against the schema took as long again as reading the tree, and a command that
 * reads a validated form loads neither the YAML reader nor the schema (validate.ts: about
 * a sixth of a check's start-up). Only that build reads it back; any other build (another
 * release, an edit of the schema) validates the file again. The environment and the
 * crawler registry are still applied afresh each time.
 *
 * One entry per configuration file, and one per build for its validated form, in
 * ROBOWATCH_CACHE_DIR, else $XDG_CACHE_HOME/robowatch, else ~/.cache/robowatch
 * (ROBOWATCH_CACHE_DIR=off: none); entries not written for 30 days are deleted as another
 * is written. A small file's tree is not kept (it parses in a millisecond), nor forms that
 * JSON cannot say exactly (a number such as .inf) or that YAML aliases make much larger
 * than the file (each site's watch list is written once however many sites list it, so
 * an alias of one list is not one of them). A cache that cannot be read or written is
 * passed over: the file is parsed, nothing fails.
 */
import { hash, randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import yamlPackage from 'js-yaml/package.json' with { type: 'json' };

/** Files from this size are worth an entry (3,000 sites take about 1 MB). */
export const CACHED_FROM_BYTES = 64 * 1024;

/** Where entries are kept, or undefined (ROBOWATCH_CACHE_DIR=off, or no home to keep them in). */
export function cacheDirectory(
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  const own = env['ROBOWATCH_CACHE_DIR'];
  if (own === 'off') return undefined;
  if (own !== undefined && own !== '') return own;
  const xdg = env['XDG_CACHE_HOME'];
  if (xdg !== undefined && xdg !== '') return join(xdg, 'robowatch');
  const home = env['HOME'];
  return home === undefined || home === '' ? undefined : join(home, '.cache', 'robowatch');
}

/**
 * What an entry keeps: the file's YAML tree, or the file validated (the schema's output,
 * parseCheckedConfig's input) by the build named in the entry.
 */
export type Kept =
  | { readonly kind: 'tree'; readonly value: unknown }
  | { readonly kind: 'checked'; readonly value: unknown };

/** A build's name as it may appear in an entry's file name. */
const BUILD_NAME = /^[0-9A-Za-z_-]{1,64}$/;

/**
 * The entries of one configuration file's bytes: its tree (any build reads it), and the
 * validated form of each build that names itself, in a file of its own (two builds in
 * turn, such as a benchmark pairing them, do not overwrite each other's).
 */
export class TreeCache {
  readonly #paths: Readonly<Record<Kept['kind'], string | undefined>>;
  readonly #headers: Readonly<Record<Kept['kind'], string | undefined>>;
  readonly #bytes: number;

  /** `build`: this bundled build's name; without one, only trees are kept and read. */
  constructor(
    directory: string,
    file: string,
    cwd: string,
    bytes: Buffer,
    version: string,
    build?: string,
  ) {
    const named = build !== undefined && BUILD_NAME.test(build) ? build : undefined;
    const entry = `config-${hash('sha1', resolve(cwd, file), 'hex')}`;
    const sha256 = hash('sha256', bytes, 'hex');
    this.#paths = {
      tree: join(directory, `${entry}.json`),
      checked: named === undefined ? undefined : join(directory, `${entry}-${named}.json`),
    };
    this.#headers = {
      // "lists": the form of PackedForm (below); an entry written before it is read by none.
      tree: `robowatch ${version} config tree lists ${sha256} js-yaml ${yamlPackage.version}`,
      checked:
        named === undefined
          ? undefined
          : `robowatch ${version} config checked ${sha256} build ${named}`,
    };
    this.#bytes = bytes.length;
  }

  /** Whether this build keeps the validated form (it names itself). */
  get keepsChecked(): boolean {
    return this.#headers.checked !== undefined;
  }

  /** What is kept for these bytes: this build's validated form, else the tree, if any. */
  async read(): Promise<Kept | undefined> {
    for (const kind of ['checked', 'tree'] as const) {
      const value = await this.#read(kind);
      if (value !== undefined) return { kind, value };
    }
    return undefined;
  }

  async #read(kind: Kept['kind']): Promise<unknown> {
    const path = this.#paths[kind];
    if (path === undefined) return undefined;
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch {
      return undefined;
    }
    const end = text.indexOf('\n');
    if (end < 0 || text.slice(0, end) !== this.#headers[kind]) return undefined;
    try {
      return unpack(JSON.parse(text.slice(end + 1)) as unknown);
    } catch {
      return undefined; // cut short (a full disk): parsed again, and written again
    }
  }

  /**
   * Keeps a form of these bytes (written whole, then renamed into place); false when it
   * is not kept (a form JSON cannot say exactly, or a cache that cannot be written).
   */
  async write(kept: Kept): Promise<boolean> {
    const path = this.#paths[kept.kind];
    const header = this.#headers[kept.kind];
    if (path === undefined || header === undefined) return false;
    if (kept.kind === 'tree' && !exact(kept.value)) return false;
    const json = JSON.stringify(pack(kept.value));
    // Other aliases than a watch list are written out in full by JSON. (A small file's
    // validated form, its defaults filled in, may well be a few times the file.)
    if (json.length > Math.max(2 * this.#bytes, CACHED_FROM_BYTES)) return false;
    // The validated form is kept only if JSON gives it back as it is: no value that JSON
    // drops or changes (undefined, a Date, .inf), since nothing checks it when read.
    if (kept.kind === 'checked' && !isDeepStrictEqual(unpack(JSON.parse(json)), kept.value))
      return false;
    const temporary = `${path}.${randomUUID()}.tmp`;
    try {
      await mkdir(dirname(path), { recursive: true, mode: 0o700 });
      await writeFile(temporary, `${header}\n${json}`, { mode: 0o600 });
      await rename(temporary, path);
      await forgetOld(dirname(path));
      return true;
    } catch {
      // A read-only or full cache directory: the next command parses the file again.
      return false;
    }
  }
}

/**
 * A form as an entry holds it: each site's watch list written once, however many sites
 * list it (a generated file writes every site's list out; a YAML alias gives them all
 * one), and read back as one array the sites share. Written out per site, JSON.parse made
 * 60,000 strings for 3,000 sites' lists of 20, the collector copied them all, and the
 * resolver joined each list again to find it shared: a check of one site with such a file
 * spent 0.47 s of CPU, 0.445 s now (0.39 with one top-level list); and a file whose sites
 * alias one list was too large to keep at all, so each command parsed and validated it
 * again (20,000 sites: 1.2-1.35 s, 0.8-0.95 now; docs/performance.md, fifty-fourth round).
 */
interface PackedForm {
  /** The distinct watch lists. */
  readonly lists: readonly (readonly string[])[];
  /** Each site's list by its place in `lists`, or -1 (its watch is not a list of text). */
  readonly watch: readonly number[];
  /** The form, each listed site's watch left as 0 (its place kept among its keys). */
  readonly value: unknown;
}

type Entry = Record<string, unknown>;

function isEntry(value: unknown): value is Entry {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function isTextList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/** The form with each site's watch list written once (not changed: copied where it differs). */
function pack(value: unknown): PackedForm {
  const sites = isEntry(value) ? value['sites'] : undefined;
  if (!isEntry(value) || !Array.isArray(sites)) return { lists: [], watch: [], value };
  const lists: string[][] = [];
  const known = new Map<string, number>();
  const watch: number[] = [];
  const packed = sites.map((site: unknown) => {
    if (!isEntry(site) || !isTextList(site['watch'])) {
      watch.push(-1);
      return site;
    }
    const list = site['watch'];
    const key = JSON.stringify(list);
    let at = known.get(key);
    if (at === undefined) {
      known.set(key, (at = lists.length));
      lists.push(list);
    }
    watch.push(at);
    return { ...site, watch: 0 };
  });
  return { lists, watch, value: { ...value, sites: packed } };
}

/** The form an entry holds, its sites' watch lists put back (shared); throws if it is not one. */
function unpack(form: unknown): unknown {
  if (!isEntry(form) || !Array.isArray(form['lists']) || !Array.isArray(form['watch']))
    throw new Error('not a kept form');
  const { lists, watch, value } = form as unknown as PackedForm;
  if (watch.length === 0) return value;
  const sites = isEntry(value) ? value['sites'] : undefined;
  if (!Array.isArray(sites) || sites.length !== watch.length) throw new Error('not a kept form');
  watch.forEach((at, i) => {
    if (at === -1) return;
    const list = lists[at];
    const site: unknown = sites[i];
    if (!isTextList(list) || !isEntry(site)) throw new Error('not a kept form');
    site['watch'] = list;
  });
  return value;
}

/** Entries not written for this long are deleted when another is written. */
const KEPT_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Deletes the entries of files no command has changed or read afresh for 30 days (most
 * are of files gone: a configuration in a temporary directory), and writes left halfway.
 */
async function forgetOld(directory: string): Promise<void> {
  const before = Date.now() - KEPT_MS;
  for (const name of await readdir(directory)) {
    if (!/^config-[0-9a-f]{40}(-[0-9A-Za-z_-]{1,64})?\.json(\.[0-9a-f-]{36}\.tmp)?$/.test(name))
      continue;
    const path = join(directory, name);
    const written = (await stat(path).catch(() => undefined))?.mtimeMs;
    const limit = name.endsWith('.tmp') ? Date.now() - 60 * 60 * 1000 : before;
    if (written !== undefined && written < limit) await unlink(path).catch(() => undefined);
  }
}

/** Whether JSON reads back exactly this tree (js-yaml's core schema also makes ±.inf, .nan, -0). */
function exact(tree: unknown): boolean {
  const stack: unknown[] = [tree];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === 'number') {
      if (!Number.isFinite(value) || Object.is(value, -0)) return false;
    } else if (Array.isArray(value)) {
      for (const item of value as unknown[]) stack.push(item);
    } else if (value !== null && typeof value === 'object') {
      for (const item of Object.values(value) as unknown[]) stack.push(item);
    } else if (typeof value !== 'string' && typeof value !== 'boolean' && value !== null) {
      return false;
    }
  }
  return true;
}
