import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { streamWriter } from '../../../src/cli/io.js';

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

describe('streamWriter', () => {
  it('writes every text in order to a slow reader, waiting with one listener at a time', async () => {
    const { stream, received } = slowReader();
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const out = streamWriter(stream);
      const most = { drain: 0, error: 0 };
      for (let i = 0; i < 200; i++) {
        out.write(`line ${i} of the check's output\n`);
        most.drain = Math.max(most.drain, stream.listenerCount('drain'));
        most.error = Math.max(most.error, stream.listenerCount('error'));
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

  it("says the stream's failure when done, and not before as an unhandled rejection", async () => {
    const { stream } = slowReader(new Error('EPIPE: the reader went away'));
    const out = streamWriter(stream);
    for (let i = 0; i < 20; i++) out.write(`line ${i}\n`);
    await expect(out.done()).rejects.toThrow('EPIPE: the reader went away');
  });
});
