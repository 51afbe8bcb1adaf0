/**
 * A daemon as a new user starts it: on the default daily schedule it checks every site at
 * once (its baseline), says when it checks next, and the read-only commands work beside
 * it although it holds the embedded database; a web port that is taken stops it before
 * it does any work.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runInProcess } from '../support/cli.js';
import { checksLogged, logged, startDaemon, expectCleanExit } from '../support/daemon.js';
import { FixtureServer } from '../support/fixture-server.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const sites = [new FixtureServer(), new FixtureServer()];
const hook = new WebhookReceiver('s3cret-s3cret');
beforeAll(async () => {
  for (const s of sites) await s.start();
  await hook.start();
});
afterAll(async () => {
  for (const s of sites) await s.stop();
  await hook.stop();
});

const V1 = 'User-agent: *\nDisallow: /private/\n';
const V2 = 'User-agent: *\nDisallow: /private/\nDisallow: /pricing\n';

function writeConfig(listen: string | number): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'robowatch-start-'));
  const file = join(dir, 'robowatch.yaml');
  writeFileSync(
    file,
    `dataDir: ${join(dir, 'data')}
agents: [Googlebot, GPTBot]
sites:
${sites.map((s) => `  - url: ${s.origin}\n    watch: [/, /pricing]`).join('\n')}
fetch: {allowPrivateAddresses: 'loopback', confirmRetries: 0, timeoutMs: 3000}
web: {listen: ${listen}}
notify:
  webhooks: [{url: '${hook.url}/hook', format: slack}]
`,
  );
  return { dir, file };
}

describe('robowatch start', () => {
  it('checks every site at once on a daily schedule, says when next, and answers the read-only commands', async () => {
    for (const s of sites) s.serve('/robots.txt', 200, V1);
    const { file } = writeConfig(0);
    const env = { DATABASE_URL: '' };
    const started = Date.now();
    const daemon = startDaemon(file, env);
    try {
      // The plan, in the log: every site due within seconds, as its first check.
      await vi.waitFor(() => expect(logged(daemon, 'first checks queued')).toBe(true), {
        timeout: 30_000,
      });
      const plan = daemon.logs.find((l) => l['msg'] === 'first checks queued')!;
      expect(plan['sites']).toBe(2);
      // Due when planned, not spread over the seconds after: the pool, woken by the
      // planning, takes them at once.
      const due = (plan['plan'] as { site: string; dueAt: string }[]).map((p) =>
        Date.parse(p.dueAt),
      );
      expect(due).toHaveLength(2);
      for (const at of due) expect(at).toBeLessThanOrEqual(Date.parse(String(plan['time'])));
      await vi.waitFor(() => expect(checksLogged(daemon)).toBe(2), { timeout: 60_000 });
      expect(Date.now() - started).toBeLessThan(60_000 + 20_000); // the start itself included

      // The overview says when each site is checked next: its place in tomorrow's period.
      const base = String(daemon.logs.find((l) => l['msg'] === 'web listening')!['url']);
      const overview = await (await fetch(base, { headers: { accept: 'text/html' } })).text();
      expect(overview.match(/\(in [^)]+\)/g)).toHaveLength(2);

      // Read-only commands, beside the daemon that holds the embedded database.
      const origin = sites[0]!.origin;
      const history = await runInProcess(['history', origin, '--config', file], { env });
      expect([history.code, history.stderr]).toEqual([0, '']);
      expect(history.stdout.split('\n')[1]).toMatch(/^[12]\s+\S+ \S+\s+\S+ \S+\s+ok\s+200\s/);
      sites[0]!.serve('/robots.txt', 200, V2);
      const check = await runInProcess(['check', '--site', origin, '--config', file], { env });
      expect([check.code, check.stderr]).toEqual([0, '']);
      // (Snapshot ids follow the order the two baselines were recorded in.)
      expect(check.stdout.replace(/\[snapshot \d+\]/, '[snapshot N]')).toContain(
        `${origin}  CHANGED    ok 200; 1 change  [snapshot N]\n    \`Disallow: /pricing\` added to the \`*\` group (line 3)\n      now disallowed for Googlebot and GPTBot: /pricing\n`,
      );
      // And what the daemon's check did to the site's intent: /pricing is meant for Googlebot.
      expect(check.stdout).toMatch(
        /^ {4}Not as intended: \/pricing is blocked for Googlebot\. Incident #\d+ opened: http:\/\/\S+\/incidents\/\d+\n {6}why: Disallow: \/pricing \(line 3\) blocks pages meant to be crawled\n1 site checked: 0 baseline, 1 changed \(1 change\), 0 unchanged; incidents: 1 opened\n$/m,
      );
      // Every site beside the daemon: checked at once, as the command checks them alone.
      // Each site's answer waits until every site has asked (checked one after another,
      // the first would wait out its timeout and be recorded unreachable).
      const held: (() => void)[] = [];
      sites.forEach((s, i) =>
        s.routes.set('/robots.txt', (_req, res) => {
          held.push(() =>
            res.writeHead(200, { 'content-type': 'text/plain' }).end(i === 0 ? V2 : V1),
          );
          if (held.length === sites.length) for (const answer of held.splice(0)) answer();
        }),
      );
      const all = await runInProcess(['check', '--config', file], { env });
      expect([all.code, all.stderr]).toEqual([0, '']);
      for (const s of sites)
        expect(all.stdout).toMatch(
          new RegExp(`^${s.origin}  unchanged  ok 200  \\[snapshot \\d+\\]$`, 'm'),
        );
      expect(all.stdout).toMatch(
        /^2 sites checked: 0 baseline, 0 changed \(0 changes\), 2 unchanged$/m,
      );
      for (const [i, s] of sites.entries()) s.serve('/robots.txt', 200, i === 0 ? V2 : V1);
      const diff = await runInProcess(['diff', origin, '--config', file], { env });
      expect(diff.code).toBe(0);
      expect(diff.stdout).toContain(
        'What changed (1):\n  `Disallow: /pricing` added to the `*` group (line 3)',
      );
      expect(diff.stdout).toMatch(/^\+Disallow: \/pricing$/m);
      const json = JSON.parse(
        (await runInProcess(['diff', origin, '--json', '--config', file], { env })).stdout,
      ) as { causes: unknown[] };
      expect(json.causes).toHaveLength(1);
      // history through the daemon says what each snapshot changed, as the command alone does.
      const changed = await runInProcess(['history', origin, '--config', file], { env });
      expect(changed.stdout.split('\n').slice(0, 2).join('\n')).toMatch(
        /WHAT CHANGED\n.*\s{2}\/pricing is now disallowed for Googlebot and GPTBot \(Disallow: \/pricing, line 3\)$/,
      );
      const digest = await runInProcess(['digest', '--config', file], { env });
      expect(digest.code).toBe(0);
      expect(digest.stdout).toMatch(
        /^To: webhook http:\/\/127\.0\.0\.1:\d+\/… #[0-9a-f]{8}\nSubject: robowatch digest .*: 1 site needs attention \(2 sites\)\n/,
      );
      // Trends read the same history over the daemon's API.
      const trends = await runInProcess(['trends', '--json', '--config', file], { env });
      expect([trends.code, trends.stderr]).toEqual([0, '']);
      const groups = JSON.parse(trends.stdout) as { group: string; points: { sites: number }[] }[];
      expect(groups.map((t) => [t.group, t.points.at(-1)?.sites])).toEqual([
        ['googlebot', 2],
        ['gptbot', 2],
      ]);
      const send = await runInProcess(['digest', '--send', '--config', file], { env });
      expect(send.code).toBe(1);
      expect(send.stderr).toMatch(
        /sends the digest itself on schedule.digest; stop it to send one now\n$/,
      );
      // The alert of that change went out from the daemon, once.
      await vi.waitFor(() => expect(hook.received).toHaveLength(1), { timeout: 20_000 });
      expect((JSON.parse(hook.received[0]!.body) as { text: string }).text).toContain(
        '/pricing is now disallowed for Googlebot and GPTBot (Disallow: /pricing, line 3)',
      );
    } finally {
      daemon.child.kill('SIGTERM');
    }
    await expectCleanExit(daemon);
  });

  it('exits at once, with a one-line error, when its web port is taken, and checks nothing', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    const requests = sites.map((s) => s.requests.length);
    try {
      const { file } = writeConfig(`'127.0.0.1:${port}'`);
      const daemon = startDaemon(file, { DATABASE_URL: '' });
      expect(await daemon.exit).toBe(1);
      expect(daemon.stderr).toBe(
        `robowatch: cannot listen on 127.0.0.1:${port}: another process has that port (set web.listen, or --no-web)\n`,
      );
      expect(logged(daemon, 'daemon started')).toBe(false);
      expect(sites.map((s) => s.requests.length)).toEqual(requests);
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  });
});
