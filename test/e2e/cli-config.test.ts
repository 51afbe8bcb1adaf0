/**
 * `robowatch config check`: before a start or a reload, the configuration as they would
 * load it (its ${NAME} settings filled in), what it watches and whom it tells, never a
 * password; or why they would refuse it, in one line. It opens no database. (That a reload
 * refuses a file for the same reason is daemon-sites.test.ts's.)
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { runInProcess } from '../support/cli.js';

function writeConfig(text: string): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'robowatch-config-'));
  const file = join(dir, 'robowatch.yaml');
  writeFileSync(file, text);
  return { dir, file };
}

const { version: VERSION } = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
) as { version: string };

const SITES = `agents: [Googlebot, GPTBot]
sites:
  - {url: 'https://shop.example', watch: [/, /pricing]}
  - {url: 'https://news.example', watch: [/], schedule: '0 */6 * * *'}
  - {url: 'https://blog.example', watch: [/]}
`;

describe('robowatch config check', () => {
  it('says what the file watches and whom it tells, with its settings from the environment and no password', async () => {
    const { dir, file } = writeConfig(`${SITES}schedule: {timezone: Europe/Paris}
notify:
  email: {smtp: 'smtp://robowatch:\${SMTP_PASSWORD}@mail.example:587', from: rw@example.com, to: [seo@example.com, lead@example.com]}
  webhooks: [{url: 'https://hooks.example/robots', secret: '\${HOOK_SECRET}'}]
web: {listen: '127.0.0.1:9090'}
`);
    const env = {
      SMTP_PASSWORD: 'mail-pass-123',
      HOOK_SECRET: 'hook-secret-456',
      DATABASE_URL: 'postgres://rw:db-pass-789@db.example:5432/robowatch',
    };
    // Run where the file is: an embedded database would be in its data/.
    const result = await runInProcess(['config', 'check', '--config', file], { env, cwd: dir });
    expect([result.code, result.stderr]).toEqual([0, '']);
    expect(result.stdout).toBe(
      [
        `${file}: valid; robowatch start and a reload would load it`,
        `  sites in the file: 3, checked on '0 3 * * *' (2 sites), '0 */6 * * *' (1 site), in Europe/Paris; the digest on '0 8 * * 1'`,
        '  database: PostgreSQL at db.example:5432/robowatch (DATABASE_URL)',
        '  alerts: 2 email addresses through smtp://mail.example:587 and 1 webhook, for every site without its own',
        '  web: http://127.0.0.1:9090',
        `  running: none on this host with this data directory (${join(dir, 'data')})`,
        '',
      ].join('\n'),
    );
    for (const secret of Object.values(env).slice(0, 2).concat('db-pass-789'))
      expect(result.stdout).not.toContain(secret);
    // Nothing was opened or written beside the file.
    expect(existsSync(join(dir, 'data'))).toBe(false);

    // Embedded, and telling nobody: said, for that is what the daemon would do.
    const quiet = writeConfig(`${SITES}web: {listen: '[::1]:0'}\n`);
    const embedded = await runInProcess(['config', 'check', '--config', quiet.file], {
      env: { DATABASE_URL: '' },
      cwd: quiet.dir,
    });
    expect(embedded.code).toBe(0);
    expect(embedded.stdout).toContain(`  database: embedded, in ${join(quiet.dir, 'data')}\n`);
    expect(embedded.stdout).toContain(
      '  alerts: nobody is told (no notify.email.to and no notify.webhooks)\n',
    );
    expect(embedded.stdout).toContain(
      '  web: http://[::1], on a free port chosen at the start (logged as web listening)\n',
    );
    expect(existsSync(join(quiet.dir, 'data'))).toBe(false);
  });

  it('says what a reload of the file would apply to the daemon that runs on its data directory', async () => {
    const { dir, file } = writeConfig(
      `sites: []\nweb: {listen: '127.0.0.1:0', token: '\${TOKEN}'}\n`,
    );
    const data = join(dir, 'data');
    const env = { DATABASE_URL: '', TOKEN: 'config-check-token-0123456789' };
    const check = async () => {
      const result = await runInProcess(['config', 'check', '--config', file], { env, cwd: dir });
      expect([result.code, result.stderr]).toEqual([0, '']);
      return result.stdout.split('\n').filter((line) => line.startsWith('  running: '));
    };
    // What a daemon killed without cleaning up left, and a file cut short: neither runs.
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    const record = (pid: number) => join(data, `running-${hostname()}-${pid}.json`);
    mkdirSync(data);
    writeFileSync(
      record(gone),
      JSON.stringify({
        pid: gone,
        command: 'start',
        version: '0.0.1',
        startedAt: new Date().toISOString(),
        restartSettings: {},
      }),
    );
    writeFileSync(record(1), '{"pid": 1, "vers');
    expect(await check()).toEqual([
      `  running: none on this host with this data directory (${data})`,
    ]);

    const stop = new AbortController();
    const daemon = runInProcess(['start', '--config', file], {
      env,
      cwd: dir,
      signal: stop.signal,
    });
    try {
      await vi.waitFor(() => expect(existsSync(record(process.pid))).toBe(true), {
        timeout: 60_000,
        interval: 50,
      });
      // The record says no secret and keeps to its owner; the dead process's is gone.
      expect(statSync(record(process.pid)).mode & 0o777).toBe(0o600);
      expect(readFileSync(record(process.pid), 'utf8')).not.toContain(env.TOKEN);
      expect(existsSync(record(gone))).toBe(false);
      const [line, ...others] = await check();
      expect(others).toEqual([]);
      const started =
        /^ {2}running: process (\d+) \(robowatch start\), started (\d{4}-\d\d-\d\d \d\d:\d\d) UTC: (.*)$/.exec(
          line!,
        );
      expect(started?.slice(1)).toEqual([
        String(process.pid),
        expect.stringMatching(/^\d{4}/),
        `a reload (kill -HUP ${process.pid}) applies all of the file`,
      ]);

      // Watched pages and alerts apply at a reload; how it fetches and its time zone at a
      // restart.
      writeFileSync(
        file,
        `sites: []\nwatch: [/, /pricing]\nnotify: {webhooks: [{url: 'https://hooks.example/x'}]}\nweb: {listen: '127.0.0.1:0', token: '\${TOKEN}'}\nfetch: {timeoutMs: 5000}\nschedule: {timezone: Europe/Paris}\n`,
      );
      expect(await check()).toEqual([
        expect.stringMatching(
          new RegExp(
            `^ {2}running: process ${process.pid} \\(robowatch start\\), started \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d \\(Europe/Paris\\): a reload \\(kill -HUP ${process.pid}\\) applies the file except fetch and schedule\\.timezone, which changed since it started and wait for a restart$`,
          ),
        ),
      ]);

      // One of them alone.
      writeFileSync(
        file,
        `sites: []\nweb: {listen: '127.0.0.1:0', token: '\${TOKEN}'}\nfetch: {timeoutMs: 5000}\n`,
      );
      expect((await check())[0]).toMatch(
        / UTC: a reload \(kill -HUP \d+\) applies the file except fetch, which changed since it started and waits for a restart$/,
      );

      // A process of an earlier version recorded fewer settings: those it did not may have
      // changed, and are named.
      const older = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
        stdio: 'ignore',
      });
      try {
        writeFileSync(
          record(older.pid!),
          JSON.stringify({
            pid: older.pid,
            command: 'serve',
            version: '0.0.1',
            startedAt: '2026-01-02T03:04:00.000Z',
            restartSettings: {},
          }),
        );
        const lines = await check();
        expect(lines).toHaveLength(2);
        expect(lines).toContain(
          `  running: process ${older.pid} (robowatch serve), started 2026-01-02 03:04 UTC, running robowatch 0.0.1 (this is ${VERSION}): a reload (kill -HUP ${older.pid}) applies the file except dataDir, DATABASE_URL, fetch, schedule.timezone, schedule.leaseMs, schedule.retentionDays, web and archive, which changed since it started and wait for a restart`,
        );
      } finally {
        older.kill();
      }
    } finally {
      stop.abort();
    }
    expect((await daemon).code).toBe(0);
    // Stopped, it is no longer there to reload.
    expect(await check()).toEqual([
      `  running: none on this host with this data directory (${data})`,
    ]);
  });

  it('refuses a file start or a reload would refuse, in one line that names what is wrong', async () => {
    const typo = writeConfig(`${SITES}notify: {webhoks: []}\n`);
    const refused = await runInProcess(['config', 'check', '--config', typo.file]);
    expect(refused).toEqual({
      code: 1,
      stdout: '',
      stderr: `robowatch: ${typo.file}: notify: unknown key "webhoks" (did you mean "webhooks"?)\n`,
    });

    // A ${NAME} the environment does not set: named, as start would name it.
    const unset = writeConfig(
      `${SITES}notify: {webhooks: [{url: 'https://hooks.example/x', secret: '\${HOOK_SECRET}'}]}\n`,
    );
    const missing = await runInProcess(['config', 'check', '--config', unset.file], {
      env: { HOOK_SECRET: undefined },
    });
    expect([missing.code, missing.stdout]).toEqual([1, '']);
    expect(missing.stderr).toBe(
      `robowatch: ${unset.file}: notify.webhooks[0].secret: environment variable HOOK_SECRET is not set\n`,
    );

    const absent = await runInProcess(['config', 'check', '--config', join(typo.dir, 'nope.yaml')]);
    expect([absent.code, absent.stderr]).toEqual([
      1,
      `robowatch: ${join(typo.dir, 'nope.yaml')}: cannot read the configuration: no such file\n`,
    ]);
  });
});
