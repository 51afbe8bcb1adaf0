import { createHash } from 'node:crypto';

/** robowatch's namespace for name-based job ids. */
const NAMESPACE = Buffer.from('6f1c2a5e9d3b4c7a8e0f1a2b3c4d5e6f', 'hex');

/**
 * A name-based UUID (version 5, RFC 9562) for a piece of work: the same work (a site's
 * check in a period, a notification's attempt) always gets the same job id, so that it
 * is queued once however many processes plan it.
 */
export function jobId(name: string): string {
  const hash = createHash('sha1').update(NAMESPACE).update(name).digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
