/**
 * `robowatch demo` as a new user runs it: four local sites, the daemon and the web UI on
 * the embedded database, no internet. It says where to open the UI and which token to
 * sign in with; the sites get checked, and their robots.txt changes are recorded.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { runInProcess } from '../support/cli.js';
import { startCommand, expectCleanExit } from '../support/daemon.js';
import type { DaemonProcess } from '../support/daemon.js';

const dir = mkdtempSync(join(tmpdir(), 'robowatch-demo-'));
let demo: DaemonProcess | undefined;

afterAll(async () => {
  if (demo !== undefined) {
    demo.child.kill('SIGTERM');
    await demo.exit;
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('robowatch demo', () => {
  it('serves four changing local sites, checked and shown without the internet', async () => {
    demo = startCommand(['demo', '--listen', '127.0.0.1:0', '--data-dir', dir, '--step', '4'], {
      DATABASE_URL: '',
    });
    const said = () =>
      /Open (http:\/\/127\.0\.0\.1:\d+) and sign in with the token ([0-9a-f]{24})/.exec(
        demo!.stderr,
      );
    await vi.waitFor(() => expect(said(), demo!.stderr).not.toBeNull(), { timeout: 30_000 });
    const [, base, token] = said()!;
    const api = async <T>(path: string) => {
      const response = await fetch(`${base}${path}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(response.status, path).toBe(200);
      return (await response.json()) as T;
    };
    const sites = await api<{ sites: { name: string }[] }>('/api/v1/sites');
    expect(sites.sites.map((s) => s.name)).toEqual(['Shop', 'News', 'Blog', 'Docs']);
    // Within a few steps: every site checked, and the News site's 503 recorded as a change.
    type Sites = {
      sites: { name: string; condition: string; lastChange: unknown; intent: { state: string } }[];
    };
    let checked: Sites | undefined;
    await vi.waitFor(
      async () => {
        checked = await api<Sites>('/api/v1/sites');
        expect(checked.sites.every((s) => s.condition !== 'none')).toBe(true);
        expect(checked.sites.find((s) => s.name === 'News')?.lastChange).not.toBeNull();
      },
      { timeout: 90_000, interval: 1_000 },
    );
    // The docs keep their search results out on purpose, as the demo's intent says: no
    // incident for a page blocked as its owner means it to be.
    expect(checked!.sites.find((s) => s.name === 'Docs')?.intent.state).toBe('as-intended');
    // Nor do its sitemaps list them: no "Submitted URL blocked by robots.txt" for the docs'
    // search results, on a site whose robots.txt never changes.
    const { sites: ids } = await api<{ sites: { id: number; name: string }[] }>('/api/v1/sites');
    const docs = ids.find((s) => s.name === 'Docs')!;
    await vi.waitFor(
      async () => {
        const response = await fetch(`${base}/api/v1/sites/${docs.id}/coverage`, {
          headers: { authorization: `Bearer ${token}` },
        });
        expect(response.status).toBe(200);
        const coverage = (await response.json()) as { urls: number; findings: string[] };
        expect(coverage.urls).toBeGreaterThan(0);
        expect(coverage.findings).toEqual([]);
      },
      { timeout: 60_000, interval: 1_000 },
    );
    expect(demo.stderr).toContain('starting fresh');

    // Beside it, the README's commands read the demo's file: `config check` names the demo
    // as what a reload reaches, and `incidents` lists what its stories broke.
    const file = join(dir, 'robowatch-demo.yaml');
    const env = { DATABASE_URL: '' };
    const pid = demo.child.pid!;
    const configured = await runInProcess(['config', 'check', '--config', file], { env });
    expect(configured.stdout).toMatch(
      new RegExp(
        `\\n {2}running: process ${pid} \\(robowatch demo\\), started .*: a reload \\(kill -HUP ${pid}\\) applies all of the file\\n$`,
      ),
    );
    await vi.waitFor(
      async () => {
        const listed = await runInProcess(['incidents', '--config', file], { env });
        expect(listed.stdout).toMatch(
          /^ID +STATE +SITE .*\n\d+ +(open|resolved) +(Shop|News|Blog) \(127\.0\.0\.1:\d+\) /,
        );
      },
      { timeout: 90_000, interval: 1_000 },
    );
    const before = await api<{
      sites: { id: number; origin: string; currentSnapshotId: number }[];
    }>('/api/v1/sites');

    // Restarted on the same data directory: the same token, sites and history.
    demo.child.kill('SIGTERM');
    await expectCleanExit(demo);
    demo = startCommand(['demo', '--listen', '127.0.0.1:0', '--data-dir', dir, '--step', '4'], {
      DATABASE_URL: '',
    });
    await vi.waitFor(() => expect(said(), demo!.stderr).not.toBeNull(), { timeout: 30_000 });
    expect(demo.stderr).toContain('carrying on from its last run');
    const [, again, sameToken] = said()!;
    expect(sameToken).toBe(token);
    const after = (await (
      await fetch(`${again}/api/v1/sites`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as { sites: { id: number; origin: string; currentSnapshotId: number | null }[] };
    expect(after.sites.map((s) => [s.id, s.origin])).toEqual(
      before.sites.map((s) => [s.id, s.origin]),
    );
    expect(after.sites.every((s) => s.currentSnapshotId !== null)).toBe(true);
  }, 180_000);
});
