/** The backends' CPU by statement, read from PostgreSQL's log (bench:alternate, BENCH_PG_LOG). */
import { describe, expect, it } from 'vitest';
import { parseStatementLog } from '../../../bench/statement-cpu.js';

/** One statement's statistics as PostgreSQL 15 logs them (Debian's line prefix). */
function entry(pid: number, db: string, phase: string, user: number, system: number, text: string) {
  const at = `2026-11-30 14:24:31.131 UTC [${pid}] root@${db}`;
  return [
    `${at} LOG:  ${phase} STATISTICS`,
    `${at} DETAIL:  ! system usage stats:`,
    `\t!\t${user.toFixed(6)} s user, ${system.toFixed(6)} s system, 0.000492 s elapsed`,
    `\t!\t[0.900000 s user, 0.300000 s system total]`,
    `\t!\t16196 kB max resident size`,
    `${at} STATEMENT:  ${text}`,
  ].join('\n');
}

describe('parseStatementLog', () => {
  it("sums each statement's CPU by phase, for the run's database only", () => {
    const insert = '/* prepared insert-states */ \n\t      WITH input AS (SELECT 1)';
    const log = [
      entry(10, 'bench', 'BIND', 0.001, 0.0005, insert),
      entry(11, 'other', 'EXECUTE', 5, 5, insert),
      entry(10, 'bench', 'EXECUTE', 0.004, 0.001, insert),
      entry(12, 'bench', 'EXECUTE', 0.002, 0, insert),
      entry(12, 'bench', 'QUERY', 0.0001, 0, 'SELECT   pg_backend_pid()\n\t AS pid'),
      '2026-11-30 14:24:32.000 UTC [13] LOG:  checkpoint starting: time',
    ].join('\n');
    const table = parseStatementLog(log, 'bench');
    expect([...table.keys()].sort()).toEqual([
      'SELECT pg_backend_pid() QUERY',
      'insert-states BIND',
      'insert-states EXECUTE',
    ]);
    expect(table.get('insert-states EXECUTE')!.calls).toBe(2);
    expect(table.get('insert-states EXECUTE')!.cpu).toBeCloseTo(0.007, 9);
    expect(table.get('insert-states BIND')).toEqual({ calls: 1, cpu: 0.0015 });
  });

  it('reads nothing of a log without statistics', () => {
    expect(parseStatementLog('2026-11-30 LOG:  database system is ready\n', 'bench').size).toBe(0);
  });
});
