import { sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import {
  batchColumn,
  batchParam,
  gatherParams,
  openDatabase,
  prepared,
  queryRows,
} from '../../../src/store/db.js';
import { sites } from '../../../src/store/schema.js';

/** A statement of the check path's kind: batch arrays, JSON, nested fragments, a null. */
function statement(rows: readonly { id: number; at: Date; note: string | null }[]) {
  const inner = sql`SELECT ${sql.raw('1')} WHERE ${'x'} = ${'y'}`;
  return prepared(
    'test-statement',
    sql`WITH input AS (SELECT * FROM unnest(
      ${batchColumn(rows, 'int[]', (r) => r.id)},
      ${batchColumn(rows, 'timestamptz[]', (r) => r.at.toISOString())},
      ${batchColumn(rows, 'text[]', (r) => r.note)}) AS t(id, at, note))
    SELECT ${JSON.stringify(rows)}::jsonb, ${null}::text, ${rows.length}, (${inner}),
      ${sql.join([sql`${1}`, sql`${2}`], sql`, `)}, ${batchParam([3, 4], 'int[]')}`,
  );
}

describe('prepared statements', () => {
  it('gather their parameters as drizzle renders them, in the same order', () => {
    const dialect = new PgDialect();
    for (const rows of [
      [],
      [{ id: 1, at: new Date('2026-11-30T00:00:00Z'), note: null }],
      [
        { id: 2, at: new Date('2026-11-30T01:00:00Z'), note: 'a "quoted" note' },
        { id: 3, at: new Date('2026-11-30T02:00:00Z'), note: '{braces}' },
      ],
    ]) {
      const query = statement(rows);
      const params: unknown[] = [];
      expect(gatherParams(query.queryChunks, params)).toBe(true);
      expect(params).toEqual(dialect.sqlToQuery(query).params);
    }
  });

  it('leave a statement with a column or a table to drizzle', () => {
    const params: unknown[] = [];
    expect(
      gatherParams(
        prepared('test-columns', sql`SELECT ${sites.id} FROM ${sites}`).queryChunks,
        params,
      ),
    ).toBe(false);
  });

  it('run with the text rendered at their first run and the values of each run', async () => {
    const handle = await openDatabase({ url: undefined, dataDir: '', inMemory: true });
    try {
      const run = async (values: readonly number[]) => {
        const [row] = await queryRows<{ total: number | null }>(
          handle.db,
          prepared(
            'test-sum',
            sql`SELECT sum(x)::int AS total FROM unnest(${batchParam(values, 'int[]')}) AS x`,
          ),
        );
        return row!.total;
      };
      expect(await run([1, 2, 3])).toBe(6);
      expect(await run([10, 20])).toBe(30);
      expect(await run([])).toBeNull();
    } finally {
      await handle.close();
    }
  });
});
