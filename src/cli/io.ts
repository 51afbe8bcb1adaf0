import { createReadStream } from 'node:fs';
import { resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { readProblem, UsageError } from '../lib/errors.js';
import { startProblem, textProblem } from '../lib/text-bytes.js';
import { grouped } from '../policy/wording/words.js';

/** The streams a command talks to; main.ts passes the process's, tests their own. */
export interface CliIo {
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly stderr: Writable;
}

/** What a command reads its input from: its streams, and the directory that relative paths name files in. */
export interface CliInput {
  readonly io: CliIo;
  readonly cwd: string;
}

/** Writes text, waiting for the stream to drain when it asks to. */
export async function write(stream: Writable, text: string): Promise<void> {
  if (text.length === 0 || stream.write(text)) return;
  await drained(stream);
}

/** Resolves when the stream drains, rejects when it fails first. */
function drained(stream: Writable): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onDrain = () => {
      stream.off('error', onError);
      resolve();
    };
    const onError = (error: Error) => {
      stream.off('drain', onDrain);
      reject(error);
    };
    stream.once('drain', onDrain);
    stream.once('error', onError);
  });
}

/**
 * Writes texts as they come without waiting between them (a check prints each site as it
 * finishes), and waits for the stream to drain once at a time: with a write waiting per
 * site, a slow reader of a large check's output made Node warn of eleven 'drain' and
 * 'error' listeners on standard output. The texts written in one turn of the event loop
 * go out as one write (the sites a batched statement finished together: a pipe's write is
 * a system call each), at the end of that turn. `done` writes what is left and settles
 * when all is written, or with the stream's error.
 */
export function streamWriter(stream: Writable): {
  write(text: string): void;
  done(): Promise<void>;
} {
  let waiting: Promise<void> | null = null;
  const waits: Promise<void>[] = [];
  let pending: string[] = [];
  let turn: NodeJS.Immediate | null = null;
  const flush = () => {
    turn = null;
    const text = pending.length === 1 ? pending[0]! : pending.join('');
    pending = [];
    if (stream.write(text) || waiting !== null) return;
    const wait = drained(stream).finally(() => (waiting = null));
    // Its failure is the caller's at done(); until then it is not an unhandled one.
    wait.catch(() => undefined);
    waiting = wait;
    waits.push(wait);
  };
  return {
    write(text) {
      if (text.length === 0) return;
      pending.push(text);
      turn ??= setImmediate(flush);
    },
    done: async () => {
      if (turn !== null) {
        clearImmediate(turn);
        flush();
      }
      await Promise.all(waits);
    },
  };
}

/** The most a command reads of one input file: a file that never ends is not read forever. */
export const MAX_INPUT_BYTES = 64 * 1024 * 1024;

export interface InputLimits {
  /** The most bytes the whole input may have. */
  readonly maxBytes: number;
  /** The most bytes one line may have (a list of lines); unbounded when absent. */
  readonly maxLineBytes?: number;
  /** What to do when the input is too large (default: split it, or give it in parts). */
  readonly advice?: string;
  /** Refuses (throws a UsageError) an input by its first bytes, before its lines are judged. */
  readonly judgeStart?: (start: Buffer) => void;
}

const mib = (bytes: number) => `${grouped(bytes / 1024 / 1024)} MiB`;
/** A limit as people read it: bytes under a MiB (4,096 bytes, not 0.004 MiB). */
const size = (bytes: number) => (bytes < 1024 * 1024 ? `${grouped(bytes)} bytes` : mib(bytes));

/** An input as messages name it: "standard input", or the path quoted. */
const inputName = (path: string) => (path === '-' ? 'standard input' : `"${path}"`);

/**
 * Reads a whole file ("-" is standard input), naming the file in the error if it cannot;
 * refuses in one line (UsageError) an input past its limits, as soon as it is past them
 * (`/dev/zero` is refused after the first line's limit, not read until memory runs out).
 */
export async function readInput(
  path: string,
  what: string,
  source: CliInput,
  limits: InputLimits = { maxBytes: MAX_INPUT_BYTES },
): Promise<Uint8Array> {
  const name = inputName(path);
  const stream = path === '-' ? source.io.stdin : createReadStream(resolve(source.cwd, path));
  const chunks: Buffer[] = [];
  let total = 0;
  let line = 1;
  let lineBytes = 0;
  try {
    for await (const data of stream) {
      const chunk = Buffer.isBuffer(data) ? data : Buffer.from(data as string);
      if (total === 0) limits.judgeStart?.(chunk);
      total += chunk.length;
      if (total > limits.maxBytes)
        throw new UsageError(
          `${what} ${name} is larger than ${size(limits.maxBytes)}: ${limits.advice ?? 'split it, or give it in parts'}`,
        );
      if (limits.maxLineBytes !== undefined) {
        let from = 0;
        for (let newline = chunk.indexOf(0x0a); ; newline = chunk.indexOf(0x0a, from)) {
          lineBytes += (newline === -1 ? chunk.length : newline) - from;
          if (lineBytes > limits.maxLineBytes)
            throw new UsageError(
              `${what} ${name}: line ${grouped(line)} is longer than ${grouped(limits.maxLineBytes)} bytes (is it a list of lines?)`,
            );
          if (newline === -1) break;
          line++;
          lineBytes = 0;
          from = newline + 1;
        }
      }
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`cannot read ${what} ${name}: ${readProblem(error)}`);
  } finally {
    if (stream !== source.io.stdin) stream.destroy();
  }
  return new Uint8Array(Buffer.concat(chunks));
}

/**
 * A file of text lines (a site list, URLs), read as readInput reads, as UTF-8 text (a
 * UTF-8 byte order mark is dropped). A compressed file, UTF-16 or other bytes that are not
 * UTF-8 are refused in one line that says what the file is and what to do, instead of
 * being read as lines of garbage (Tranco's list comes zipped) or with characters replaced.
 */
export async function readTextInput(
  path: string,
  what: string,
  source: CliInput,
  limits: InputLimits = { maxBytes: MAX_INPUT_BYTES },
): Promise<string> {
  const name = inputName(path);
  const refuse = (problem: string | undefined) => {
    if (problem !== undefined) throw new UsageError(`${what} ${name} ${problem}`);
  };
  const judgeStart = (start: Buffer) => refuse(startProblem(start));
  const bytes = await readInput(path, what, source, { ...limits, judgeStart });
  refuse(textProblem(bytes));
  return new TextDecoder().decode(bytes);
}

/**
 * Calls `onBatch` with the complete lines of each chunk read from a stream (LF or CRLF
 * endings), numbered from 1, and waits for it before reading on, so output keeps pace
 * with input and a line-by-line client gets each answer as soon as its line arrives.
 */
export async function forEachLineBatch(
  stream: Readable,
  onBatch: (lines: string[], firstLine: number) => Promise<void>,
): Promise<void> {
  stream.setEncoding('utf8');
  let rest = '';
  let next = 1;
  for await (const chunk of stream) {
    const text = rest.length === 0 ? (chunk as string) : rest + (chunk as string);
    const lines: string[] = [];
    let from = 0;
    for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', from)) {
      const end = newline > from && text.charCodeAt(newline - 1) === 0x0d ? newline - 1 : newline;
      lines.push(text.slice(from, end));
      from = newline + 1;
    }
    rest = text.slice(from);
    if (lines.length > 0) {
      await onBatch(lines, next);
      next += lines.length;
    }
  }
  if (rest.length > 0) await onBatch([rest.endsWith('\r') ? rest.slice(0, -1) : rest], next);
}

/**
 * A repeatable option's values, in order (commander's argParser). Without a default, so
 * that help does not print "(default: [])": read it as `values ?? []`.
 */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
