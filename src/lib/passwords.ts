/**
 * Password hashes: scrypt (RFC 7914), memory-hard, from Node's own crypto (OpenSSL), so no
 * native addon to build or trust. Argon2id is OWASP's first choice; scrypt is its named
 * alternative, at N=2^15, r=8, p=3 (32 MiB and about 0.1 s per hash here): a GPU or ASIC
 * guessing passwords pays for the memory of every guess. Each hash carries its parameters,
 * so they can be raised later without invalidating the hashes already stored.
 */
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

const N = 2 ** 15;
const R = 8;
const P = 3;
const KEY_BYTES = 32;
const SALT_BYTES = 16;

function derive(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(
      password.normalize('NFKC'),
      salt,
      KEY_BYTES,
      // OpenSSL refuses more memory than maxmem: 128 · N · r · p bytes, and some slack.
      { N: n, r, p, maxmem: 256 * n * r + 1024 * 1024 },
      (error, key) => (error ? reject(error) : resolve(key)),
    ),
  );
}

/** `scrypt$N$r$p$salt$hash` (base64url): what is stored for a password. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, N, R, P);
  return ['scrypt', N, R, P, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Whether `password` is the one `stored` was made from (false for anything malformed). */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [n, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  // Parameters a stored hash may carry: never more than 16 times today's cost.
  if (![n, r, p].every(Number.isSafeInteger) || n > 2 ** 19 || r > 16 || p > 16) return false;
  const expected = Buffer.from(parts[5]!, 'base64url');
  const key = await derive(password, Buffer.from(parts[4]!, 'base64url'), n, r, p);
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** A hash no password matches: what a sign-in compares with when the name is unknown. */
export const NO_PASSWORD = `scrypt$${N}$${R}$${P}$${Buffer.alloc(SALT_BYTES).toString('base64url')}$${Buffer.alloc(KEY_BYTES, 1).toString('base64url')}`;
