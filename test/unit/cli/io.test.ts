import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readInput, streamWriter } from '../../../src/cli/io.js';
import { openOutputFile } from '../../../src/cli/output.js';

/** A stream with a small buffer whose reader takes each chunk on a later turn. */
function slowReader(fail?: Error): { stream: Writable; received: string[] } {
  const received: string[] = [];
  const stream = new Writable({
    highWaterMark: 16,
    write(chunk: Buffer, _encoding, callback) {
      setImmediate(() => {
        received.push(chunk.toString());
        callback(fail ?? null);
      });
    },
  });
  return { stream, received };
}

/** The next turn of the event loop. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('streamWriter', () => {
  it('writes every text in order to a slow reader, waiting with one listener at a time', async () => {
    const { stream, received } = slowReader();
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const out = streamWriter(stream);
      const most = { drain: 0, error: 0 };
      // Sites finishing on each turn, faster than the reader takes them.
      for (let i = 0; i < 200; i += 2) {
        out.write(`line ${i} of the check's output\n`);
        out.write(`line ${i + 1} of the check's output\n`);
        await Promise.resolve();
        most.drain = Math.max(most.drain, stream.listenerCount('drain'));
        most.error = Math.max(most.error, stream.listenerCount('error'));
        if (i % 20 === 0) await nextTurn();
      }
      await out.done();
      expect(received.join('')).toBe(
        Array.from({ length: 200 }, (_, i) => `line ${i} of the check's output\n`).join(''),
      );
      expect(most).toEqual({ drain: 1, error: 1 });
      expect(stream.listenerCount('drain')).toBe(0);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('writes the texts of one turn in one write, and each turn as it ends', async () => {
    const { stream, received } = slowReader();
    const out = streamWriter(stream);
    for (let i = 0; i < 11; i++) out.write(`event ${i} of the first site\n`);
    expect(received).toEqual([]);
    await nextTurn();
    await nextTurn();
    // A reader of the output sees the first sites before the next are checked.
    expect(received).toEqual([
      Array.from({ length: 11 }, (_, i) => `event ${i} of the first site\n`).join(''),
    ]);
    out.write('the second site\n');
    out.write('');
    await out.done();
    expect(received).toEqual([received[0], 'the second site\n']);
  });

  it("says the stream's failure when done, and not before as an unhandled rejection", async () => {
    const { stream } = slowReader(new Error('EPIPE: the reader went away'));
    const out = streamWriter(stream);
    for (let i = 0; i < 20; i++) out.write(`line ${i}\n`);
    await expect(out.done()).rejects.toThrow('EPIPE: the reader went away');
  });
});

describe("a command's relative paths", () => {
  const io = { stdin: Readable.from([]), stdout: new Writable(), stderr: new Writable() };

  it('are read and written in its working directory, and named in messages as given', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'robowatch-cwd-'));
    writeFileSync(join(cwd, 'robots.txt'), 'User-agent: *\n');
    const bytes = await readInput('robots.txt', 'robots file', { io, cwd });
    expect(Buffer.from(bytes).toString()).toBe('User-agent: *\n');
    await expect(readInput('robots.txt', 'robots file', { io, cwd: tmpdir() })).rejects.toThrow(
      'cannot read robots file "robots.txt": no such file',
    );
    const out = openOutputFile('out.csv', '-o', cwd);
    await out.write('a,b\n');
    await out.commit();
    expect(readFileSync(join(cwd, 'out.csv'), 'utf8')).toBe('a,b\n');
    expect(() => openOutputFile('missing/out.csv', '-o', cwd)).toThrow(
      '-o: the directory "missing" does not exist',
    );
  });

  it('says so when the file is there but its directory takes no new files (/proc)', () => {
    // The file exists and is a regular one, so it is written beside and renamed; /proc
    // refuses the new file with ENOENT, which is not "no such directory".
    expect(() => openOutputFile('/proc/version', '-o', tmpdir())).toThrow(
      '-o: cannot write "/proc/version": its directory "/proc" takes no new files',
    );
  });
});
