/** Password hashes: scrypt with its parameters and salt in the hash, no plain text kept. */
import { describe, expect, it } from 'vitest';
import { hashPassword, NO_PASSWORD, verifyPassword } from '../../../src/lib/passwords.js';

describe('password hashes', () => {
  it('keep no trace of the password, differ for the same password, and verify only it', async () => {
    const a = await hashPassword('correct horse battery staple');
    const b = await hashPassword('correct horse battery staple');
    expect(a).toMatch(/^scrypt\$32768\$8\$3\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('horse');
    expect(await verifyPassword('correct horse battery staple', a)).toBe(true);
    expect(await verifyPassword('correct horse battery stapl', a)).toBe(false);
    expect(await verifyPassword('', a)).toBe(false);
  });

  it('read a password typed in another Unicode form as the same (NFKC)', async () => {
    const stored = await hashPassword('caf\u00e9 au lait 2026');
    expect(await verifyPassword('cafe\u0301 au lait 2026', stored)).toBe(true);
  });

  it('refuse malformed hashes and costs past what is allowed, without throwing', async () => {
    expect(await verifyPassword('x', 'plain text')).toBe(false);
    expect(await verifyPassword('x', 'scrypt$abc$8$3$AAAA$AAAA')).toBe(false);
    expect(await verifyPassword('x', 'scrypt$1073741824$8$3$AAAA$AAAA')).toBe(false);
    expect(await verifyPassword('anything at all', NO_PASSWORD)).toBe(false);
  });
});
