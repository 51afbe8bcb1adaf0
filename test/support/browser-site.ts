/**
 * What the browser tests share: a loopback site whose robots.txt went through versions,
 * each recorded by a real `robowatch check`, served by a real `robowatch serve`, and
 * Debian's Chromium to look at it.
 */
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import { expect, vi } from 'vitest';
import { runRobowatch } from './cli.js';
import { startDaemon } from './daemon.js';
import type { DaemonProcess } from './daemon.js';
import type { FixtureServer } from './fixture-server.js';

export const CHROMIUM = '/usr/bin/chromium';
export const SHOTS = join(process.cwd(), 'test-results', 'screenshots');

/** A full-page screenshot of `page`, as SHOTS/NAME.png. */
export const screenshot = (page: Page, name: string) =>
  page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

/** Signs `page` in at `base` with the access token (web.token): it lands on Sites. */
export async function signInWithToken(page: Page, base: string, token: string): Promise<void> {
  await page.goto(`${base}/login`);
  await page.getByLabel('Access token (web.token)').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect.poll(() => page.textContent('h1')).toBe('Sites');
}

export interface ServedHistory {
  readonly serve: DaemonProcess;
  /** Where `robowatch serve` listens. */
  readonly base: string;
  readonly browser: Browser;
  stop(): Promise<void>;
}

/**
 * Writes `config(dataDir)` to a new directory, checks the site once per version, serves
 * the result on the embedded database and starts Chromium.
 */
export async function serveHistory(
  site: FixtureServer,
  config: (dataDir: string) => string,
  versions: readonly (readonly [number, string])[],
  /** Run with the configuration file before the server starts (adding users, say). */
  setup?: (file: string, env: Record<string, string>) => Promise<void>,
): Promise<ServedHistory> {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does)`);
  mkdirSync(SHOTS, { recursive: true });
  const dir = mkdtempSync(join(tmpdir(), 'robowatch-browser-'));
  const file = join(dir, 'robowatch.yaml');
  writeFileSync(file, config(join(dir, 'data')));
  const env = { DATABASE_URL: '' };
  for (const [status, body] of versions) {
    site.serve('/robots.txt', status, body);
    const result = await runRobowatch(['check', '--config', file], { env });
    expect(result.code, result.stderr).toBe(0);
  }
  await setup?.(file, env);
  const serve = startDaemon(file, env, 'serve');
  await vi.waitFor(() => expect(serve.logs.some((l) => l['msg'] === 'web listening')).toBe(true), {
    timeout: 20_000,
  });
  const base = String(serve.logs.find((l) => l['msg'] === 'web listening')!['url']);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      // Traffic stays on loopback: Chromium still looked up its autofill, sign-in and
      // update services (442 queries in a run of the suite, 382 of them content-autofill). Every
      // name but the loopback's now resolves to nothing, without asking DNS.
      '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1',
    ],
  });
  return {
    serve,
    base,
    browser,
    stop: async () => {
      await browser.close();
      serve.child.kill('SIGTERM');
      await serve.exit;
    },
  };
}
