/**
 * Where a command writes what it exports: a file written beside its target and renamed
 * into place once whole (a full disk, a killed run or a failed query leave no partial
 * file, and an older file of that name stays as it was), a device or pipe written
 * directly (`-o /dev/stdout`), or standard output. Every failure is one line.
 */
import {
  closeSync,
  fsyncSync,
  openSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { basename, dirname, join, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { FatalError, UsageError } from '../lib/errors.js';

/** What rows are written to: text or bytes, in order; `commit` once all is written. */
export interface Output {
  write(data: string | Uint8Array): Promise<void>;
  /** Everything is written: the file takes its name (a stream is left open). */
  commit(): Promise<void>;
  /** Something failed: the partial file is removed. Never throws. */
  abandon(): void;
}

/** Bytes gathered before a write to the file. */
const BUFFER_BYTES = 1024 * 1024;

/** Why a file operation failed, in words. */
export function fileProblem(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  return PROBLEMS[code] ?? (error as Error).message;
}

const PROBLEMS: Readonly<Record<string, string>> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is exceeded',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  ENOENT: 'no such directory',
  EISDIR: 'it is a directory',
  ENOTDIR: 'a part of the path is not a directory',
  EPIPE: 'the reader went away',
};

/**
 * Opens `path` (a relative one in `cwd`) to be written, naming it in messages as given:
 * refuses at once (UsageError, exit 2) a directory, a missing directory or one that
 * cannot be written in, before any work is done.
 */
export function openOutputFile(path: string, flag: string, cwd: string): FileOutput {
  const file = resolve(cwd, path);
  let target: ReturnType<typeof statSync> | undefined;
  try {
    target = statSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      throw new UsageError(`${flag}: cannot write "${path}": ${fileProblem(error)}`);
  }
  if (target?.isDirectory() === true)
    throw new UsageError(`${flag}: "${path}" is a directory; name a file in it`);
  // A device or a pipe (/dev/stdout, a FIFO) is written as it is: there is nothing to rename.
  if (target !== undefined && !target.isFile()) return new FileOutput(path, file, null, flag);
  const directory = dirname(path);
  try {
    if (!statSync(dirname(file)).isDirectory())
      throw new UsageError(`${flag}: "${directory}" is not a directory`);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(
      `${flag}: the directory "${directory}" ${
        (error as NodeJS.ErrnoException).code === 'ENOENT'
          ? 'does not exist'
          : `cannot be read: ${fileProblem(error)}`
      }`,
    );
  }
  const partial = join(
    dirname(file),
    `.${basename(file)}.${randomBytes(4).toString('hex')}.partial`,
  );
  return new FileOutput(path, file, partial, flag);
}

/** A file being written (beside its target until whole, or a device or pipe directly). */
export class FileOutput implements Output {
  readonly #fd: number;
  #chunks: Buffer[] = [];
  #buffered = 0;
  #closed = false;

  constructor(
    /** The path as the command was given it, for messages. */
    private readonly path: string,
    /** The file it names. */
    private readonly file: string,
    /** The file written until it is whole; null: the target itself (a device, a pipe). */
    private readonly partial: string | null,
    flag: string,
  ) {
    try {
      this.#fd = openSync(partial ?? file, partial === null ? 'w' : 'wx', 0o644);
    } catch (error) {
      // The directory was there a moment ago: it is one that takes no new files (/proc).
      const problem =
        partial !== null && (error as NodeJS.ErrnoException).code === 'ENOENT'
          ? `its directory "${dirname(path)}" takes no new files`
          : fileProblem(error);
      throw new UsageError(`${flag}: cannot write "${path}": ${problem}`);
    }
  }

  /** Appends bytes at once, for writers that cannot wait (Parquet's); throws FatalError. */
  append(data: string | Uint8Array): void {
    const chunk = Buffer.from(data);
    this.#chunks.push(chunk);
    this.#buffered += chunk.length;
    if (this.#buffered >= BUFFER_BYTES) this.#flush();
  }

  write(data: string | Uint8Array): Promise<void> {
    try {
      this.append(data);
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  #flush(): void {
    const data = Buffer.concat(this.#chunks);
    this.#chunks = [];
    this.#buffered = 0;
    try {
      for (let at = 0; at < data.length;) at += writeSync(this.#fd, data, at);
    } catch (error) {
      throw this.#failed(error);
    }
  }

  #failed(error: unknown): FatalError {
    const nothing = this.partial === null ? '' : '; nothing was written';
    return new FatalError(`cannot write "${this.path}": ${fileProblem(error)}${nothing}`);
  }

  commit(): Promise<void> {
    try {
      this.#flush();
      // On disk before it takes the name: a crash after the rename finds it whole.
      if (this.partial !== null) fsyncSync(this.#fd);
      this.#closed = true;
      closeSync(this.#fd);
      if (this.partial !== null) renameSync(this.partial, this.file);
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error instanceof FatalError ? error : this.#failed(error));
    }
  }

  abandon(): void {
    if (!this.#closed)
      try {
        this.#closed = true;
        closeSync(this.#fd);
      } catch {
        // a file that failed: what matters is that it goes
      }
    if (this.partial !== null)
      try {
        unlinkSync(this.partial);
      } catch {
        // gone already
      }
  }
}

/** Standard output (or another stream): written with back-pressure; its errors are one line. */
export function streamOutput(stream: Writable, name = 'standard output'): Output {
  let failure: Error | null = null;
  const onError = (error: Error) => (failure ??= error);
  stream.on('error', onError);
  const check = () => {
    if (failure !== null) throw new FatalError(`cannot write ${name}: ${fileProblem(failure)}`);
  };
  return {
    async write(data) {
      check();
      try {
        // A file or device as standard output is written synchronously: its error is thrown.
        if (!stream.write(data)) await once(stream, 'drain');
      } catch (error) {
        failure ??= error as Error;
      }
      check();
    },
    commit() {
      check();
      stream.off('error', onError);
      return Promise.resolve();
    },
    abandon() {
      // After a failure the stream may still say so: the listener stays to hear it.
      if (failure === null) stream.off('error', onError);
    },
  };
}
