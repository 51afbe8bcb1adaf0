import { describe, expect, it } from 'vitest';
import { readSince } from '../../../src/cli/export.js';

describe('export --since', () => {
  it.each([
    ['2026', '2026-01-01T00:00:00.000Z'],
    ['2026-03', '2026-03-01T00:00:00.000Z'],
    ['2024-02-29', '2024-02-29T00:00:00.000Z'],
    ['2026-03-07T10:15:00Z', '2026-03-07T10:15:00.000Z'],
    ['2026-03-07T10:15:30.5+02:00', '2026-03-07T08:15:30.500Z'],
    // Before robots.txt history starts: the same as its start.
    ['1900-01-01', '1996-01-01T00:00:00.000Z'],
    ['0001-01-01', '1996-01-01T00:00:00.000Z'],
  ])('reads %s as %s', (value, iso) => {
    expect(readSince(value)?.toISOString()).toBe(iso);
  });

  it.each([
    'soon',
    '',
    '2026-02-30',
    '2025-02-29',
    '1900-02-29',
    '2026-13-01',
    '2026-00-10',
    '2026-01-00',
    '0000-01-01',
    '-000001-01-01',
    '+275760-09-13',
    '2026-01-01T25:00Z',
    'March 7, 2026',
    '2026-01-01T00:00:00+99:00',
  ])('refuses %j', (value) => {
    expect(readSince(value)).toBeUndefined();
  });
});
