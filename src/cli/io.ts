import { readFile } from 'node:fs/promises';
import type { Readable, Writable } from 'node:stream';
import { UsageError } from '../lib/errors.js';

/** The streams a command talks to; main.ts passes the process's, tests their own. */
export interface CliIo {
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly stderr: Writable;
}

/** Writes text, waiting for the stream to drain when it asks to. */
export async function write(stream: Writable, text: string): Promise<void> {
  if (text.length === 0 || stream.write(text)) return;
  await new Promise<void>((resolve, reject) => {
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

/** Reads a whole file ("-" is standard input), naming the file in the error if it cannot. */
export async function readInput(path: string, what: string, io: CliIo): Promise<Uint8Array> {
  if (path === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of io.stdin) chunks.push(Buffer.from(chunk as Buffer));
    return new Uint8Array(Buffer.concat(chunks));
  }
  try {
    return new Uint8Array(await readFile(path));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'it is a directory'
          : code === 'EACCES'
            ? 'permission denied'
            : (error as Error).message;
    throw new UsageError(`cannot read ${what} "${path}": ${reason}`);
  }
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
