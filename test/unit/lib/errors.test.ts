import { describe, expect, it } from 'vitest';
import { databaseRefusal } from '../../../src/lib/errors.js';

/** An error as pg (and PGlite) make them: a message, a severity and a SQLSTATE code. */
function databaseError(message: string, code: string): Error {
  return Object.assign(new Error(message), { severity: 'ERROR', code });
}

describe('a statement the database refused, in one line', () => {
  it('names a write refused to a user that may only read, through the errors that wrap it', () => {
    const refused = databaseError('permission denied for table sites', '42501');
    const wrapped = new Error(
      'Failed query: \n    INSERT INTO sites (origin) VALUES ($1)\nparams: https://a.example',
      { cause: refused },
    );
    expect(databaseRefusal(wrapped)).toBe(
      'the database refused a write: permission denied for table sites (this command writes; its database user may only read)',
    );
  });

  it('says any other refusal with its first line and its code', () => {
    const error = databaseError('relation "sites" does not exist\nLINE 1: …', '42P01');
    expect(databaseRefusal(new Error('Failed query', { cause: error }))).toBe(
      'the database refused a statement: relation "sites" does not exist (SQLSTATE 42P01)',
    );
  });

  it('leaves errors that are not the database’s to whoever throws them', () => {
    expect(databaseRefusal(new Error('boom'))).toBeUndefined();
    expect(databaseRefusal(Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }))).toBe(
      undefined,
    );
    expect(databaseRefusal('text')).toBeUndefined();
  });
});
