/**
 * A response body read within its limits: capped, decoded (gzip, deflate, br) at most
 * twice, discarded when not wanted.
 */
import type { Readable, Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib';
import type { FetchResult } from '../policy/fetch-result.js';

/** Drops a body we do not read; a late error on it (an abort) has nowhere else to go. */
export function discard(body: Readable): void {
  body.on('error', () => undefined);
  body.destroy();
}

interface CappedBody {
  bytes: Uint8Array;
  cut: FetchResult['cut'];
}

/**
 * Reads a body, decompressed, keeping `maxBytes`; past that it reads up to `drainBytes`
 * more only to count the line breaks lost, then stops. A compression bomb costs at most
 * maxBytes + drainBytes of decompressed output.
 */
export async function readCapped(
  body: Readable,
  encoding: string | string[] | undefined,
  maxBytes: number,
  drainBytes: number,
): Promise<CappedBody> {
  // Most robots.txt answers name no coding: read as they come, without a turn of waiting.
  const stream =
    encoding === undefined
      ? body
      : await decoded(body, Array.isArray(encoding) ? encoding.join(',') : encoding);
  stream.on('error', () => undefined); // surfaces through the loop below
  // Chunks are kept as they come and copied once: most bodies are a few hundred bytes,
  // so a buffer of the maximum size per fetch would cost far more than the body.
  const chunks: Uint8Array[] = [];
  let length = 0;
  let dropped = 0;
  let droppedLineBreaks = 0;
  let lastDroppedWasCr = false;
  let complete = true;
  // Chunks as events rather than through an async iterator (a promise per chunk); the
  // stream's end, error or premature close settles the read.
  try {
    await new Promise<void>((resolve, reject) => {
      const onData = (chunk: Uint8Array) => {
        const bytes = chunk;
        const room = maxBytes - length;
        if (room > 0) {
          const kept = bytes.length <= room ? bytes : bytes.subarray(0, room);
          chunks.push(kept);
          length += kept.length;
          // A CRLF split by the cut is one line break, counted with the kept line.
          lastDroppedWasCr = kept[kept.length - 1] === 0x0d;
        }
        for (let i = Math.max(room, 0); i < bytes.length; i++) {
          const byte = bytes[i]!;
          if (byte === 0x0d || (byte === 0x0a && !lastDroppedWasCr)) droppedLineBreaks++;
          lastDroppedWasCr = byte === 0x0d;
        }
        dropped += Math.max(0, bytes.length - Math.max(room, 0));
        if (dropped >= drainBytes) {
          complete = false;
          stop();
          resolve();
        }
      };
      // Three listeners, not stream.finished's dozen (it watches every kind of stream and
      // its request): a body ends, fails, or closes before its end (a cut connection).
      const onEnd = () => {
        stop();
        resolve();
      };
      const onError = (error: Error) => {
        stop();
        reject(error);
      };
      const onClose = () => {
        stop();
        if (stream.readableEnded) resolve();
        else reject(prematureClose());
      };
      const stop = () => {
        stream.off('data', onData);
        stream.off('end', onEnd);
        stream.off('error', onError);
        stream.off('close', onClose);
      };
      // Settled already (an empty body ended, or a coded one failed while its decoder was
      // made): nothing more will come.
      if (stream.readableEnded) return resolve();
      if (stream.destroyed) return reject(stream.errored ?? prematureClose());
      stream.on('data', onData);
      stream.once('end', onEnd);
      stream.once('error', onError);
      stream.once('close', onClose);
    });
  } finally {
    // Only a body left unread needs destroying; destroying a finished one costs an error.
    if (!stream.readableEnded) stream.destroy();
    if (!body.readableEnded) body.destroy();
  }
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  const cut = dropped > 0 ? { droppedBytes: dropped, droppedLineBreaks, complete } : null;
  return { bytes, cut };
}

/** A body that closed before its end without an error of its own (as stream.finished says it). */
function prematureClose(): Error {
  return Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
}

/**
 * Streams a body, decompressed, to `onChunk` until `maxBytes`; a body that is itself a
 * gzip file (a sitemap.xml.gz served without Content-Encoding) is gunzipped too. A
 * compression bomb costs at most maxBytes of output.
 */
export async function streamCapped(
  body: Readable,
  encoding: string | string[] | undefined,
  maxBytes: number,
  onChunk: (bytes: Uint8Array) => void,
): Promise<{ bytes: number; cut: boolean }> {
  let stream = await decoded(body, Array.isArray(encoding) ? encoding.join(',') : encoding);
  const magic = await peek(stream, 2);
  if (magic.length >= 2 && magic[0] === 0x1f && magic[1] === 0x8b) {
    const from = stream;
    const gunzip = createGunzip();
    from.on('error', (error) => gunzip.destroy(error));
    gunzip.on('close', () => {
      if (!from.readableEnded) from.destroy();
    });
    stream = from.pipe(gunzip);
  }
  stream.on('error', () => undefined); // surfaces through the loop below
  let bytes = 0;
  let cut = false;
  try {
    for await (const chunk of stream) {
      const data = chunk as Uint8Array;
      const room = maxBytes - bytes;
      if (data.length > room) {
        if (room > 0) onChunk(data.subarray(0, room));
        bytes = maxBytes;
        cut = true;
        break;
      }
      onChunk(data);
      bytes += data.length;
    }
  } finally {
    if (!stream.readableEnded) stream.destroy();
    if (!body.readableEnded) body.destroy();
  }
  return { bytes, cut };
}

const DECODERS: Readonly<Record<string, () => Transform>> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  br: createBrotliDecompress,
};
/** More codings than this on one body is not a robots.txt server's doing: kept as sent. */
const MAX_CODINGS = 4;

/**
 * The body with its content codings undone, last applied first (`gzip, gzip` is gzipped
 * twice). `deflate` is meant to be zlib-wrapped but some servers send it raw, as browsers
 * accept: the first bytes tell which. A coding robowatch cannot undo leaves the body as
 * sent (then it reads as binary, as it would to a crawler).
 */
async function decoded(body: Readable, header: string | undefined): Promise<Readable> {
  const codings = (header ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  if (codings.length > MAX_CODINGS || codings.some((c) => c !== 'deflate' && !DECODERS[c]))
    return body;
  let stream = body;
  for (const coding of codings.reverse()) {
    const decoder =
      coding === 'deflate'
        ? isZlibHeader(await peek(stream, 2))
          ? createInflate()
          : createInflateRaw()
        : DECODERS[coding]!();
    const from = stream;
    from.on('error', (error) => decoder.destroy(error));
    // A body left unread is dropped stage by stage.
    decoder.on('close', () => {
      if (!from.readableEnded) from.destroy();
    });
    stream = from.pipe(decoder);
  }
  return stream;
}

/** The first `n` bytes of a stream (fewer if it ends sooner), left in it to be read. */
async function peek(stream: Readable, n: number): Promise<Buffer> {
  let seen = Buffer.alloc(0);
  while (seen.length < n && !stream.readableEnded) {
    const chunk = stream.read() as Buffer | null;
    if (chunk !== null) {
      seen = Buffer.concat([seen, chunk]);
      continue;
    }
    const ended = await new Promise<boolean>((resolve, reject) => {
      const settle = (value: boolean, error?: Error) => {
        stream.off('readable', onReadable).off('end', onEnd).off('error', onError);
        if (error === undefined) resolve(value);
        else reject(error);
      };
      const onReadable = () => settle(false);
      const onEnd = () => settle(true);
      const onError = (error: Error) => settle(false, error);
      stream.on('readable', onReadable).on('end', onEnd).on('error', onError);
    });
    if (ended) break;
  }
  if (seen.length > 0) stream.unshift(seen);
  return seen;
}

/** RFC 1950: a zlib stream starts with CM = 8 and a header that is a multiple of 31. */
function isZlibHeader(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && (bytes[0]! & 0x0f) === 8 && ((bytes[0]! << 8) | bytes[1]!) % 31 === 0;
}
