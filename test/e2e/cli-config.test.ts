/**
 * `robowatch config check`: before a start or a reload, the configuration as they would
 * load it (its ${NAME} settings filled in), what it watches and whom it tells, never a
 * password; or why they would refuse it, in one line. It opens no database. (That a reload
 * refuses a file for the same reason is daemon-sites.test.ts's.)
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../support/cli.js';

function writeConfig(text: string): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'robowatch-config-'));
  const file = join(dir, 'robowatch.yaml');
  writeFileSync(file, text);
  return { dir, file };
}

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
