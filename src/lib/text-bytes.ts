/**
 * Files people hand robowatch as text (the configuration, a site list, a list of URLs)
 * that are not UTF-8 text: said in one line, with what to do, rather than read as garbage
 * (a zipped list's binary quoted back) or with characters silently replaced (Latin-1).
 */
import { isUtf8 } from 'node:buffer';

/** What a file is, judged by its first bytes, when it is plainly not text; else undefined. */
export function startProblem(start: Uint8Array): string | undefined {
  const starts = (...magic: number[]) => magic.every((byte, i) => start[i] === byte);
  if (starts(0x50, 0x4b, 0x03, 0x04))
    return 'is a zip archive: unzip it, then give the file inside';
  if (starts(0x1f, 0x8b)) return 'is compressed (gzip): gunzip it first';
  if (starts(0xff, 0xfe) || starts(0xfe, 0xff)) return 'is UTF-16 text: save it as UTF-8';
  return undefined;
}

/** Why a file is not UTF-8 text (naming the first line that is not), or undefined. */
export function textProblem(bytes: Uint8Array): string | undefined {
  const start = startProblem(bytes);
  if (start !== undefined) return start;
  if (isUtf8(bytes)) return undefined;
  let line = 1;
  for (let from = 0; from < bytes.length; line++) {
    const end = bytes.indexOf(0x0a, from);
    const until = end === -1 ? bytes.length : end;
    if (!isUtf8(bytes.subarray(from, until))) break;
    from = until + 1;
  }
  return `is not UTF-8 text (line ${line.toLocaleString('en-US')} is not): save it as UTF-8`;
}
