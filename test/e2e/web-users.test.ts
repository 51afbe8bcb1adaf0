/**
 * Users in a real browser (Debian's Chromium) against a real `robowatch serve`: people
 * added with `robowatch users add` sign in with their name and password; a viewer reads
 * and is offered no change (and is refused the Users page); an admin adds a user on the
 * Users page and makes an API key, shown once, on the Account page.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot, serveHistory } from '../support/browser-site.js';
import type { ServedHistory } from '../support/browser-site.js';
import { runInProcess } from '../support/cli.js';
import { FixtureServer } from '../support/fixture-server.js';

const PASSWORD = 'a browser-typed password';
const site = new FixtureServer();
let served: ServedHistory;
let browser: Browser;
let page: Page;
let base: string;

beforeAll(async () => {
  await site.start();
  served = await serveHistory(
    site,
    (dataDir) => `dataDir: ${dataDir}
agents: [Googlebot]
sites:
  - url: ${site.origin}
    name: Shop
    watch: [/, /pricing]
sitemaps: off
fetch: {allowPrivateAddresses: 'loopback', confirmRetries: 0, timeoutMs: 3000}
web: {listen: '127.0.0.1:0'}
`,
    [[200, 'User-agent: *\nDisallow: /admin/\n']],
    async (file, env) => {
      for (const [name, role] of [
        ['ada', 'admin'],
        ['vera', 'viewer'],
      ]) {
        const added = await runInProcess(
          ['users', 'add', name!, '--role', role!, '--password-stdin', '--config', file],
          { env, stdin: `${PASSWORD}\n` },
        );
        expect(added.code, added.stderr).toBe(0);
      }
    },
  );
  ({ base, browser } = served);
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
}, 90_000);

afterAll(async () => {
  await served?.stop();
  await site.stop();
});

const signIn = async (name: string) => {
  await page.goto(`${base}/login`);
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect.poll(() => page.textContent('h1')).toBe('Sites');
};

describe('users in Chromium', () => {
  it('signs a viewer in with a password; the viewer reads and is offered no change', async () => {
    await page.goto(base);
    await expect.poll(() => page.url()).toContain('/login');
    await page.getByLabel('Name').fill('vera');
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect
      .poll(() => page.textContent('main'))
      .toContain('That name and password do not match a user.');
    await signIn('vera');
    expect(await page.getByRole('link', { name: 'Add a site' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Shop' }).first().click();
    await expect.poll(() => page.textContent('h1')).toContain('Shop');
    expect(await page.getByRole('button', { name: 'Check now' }).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Pause' }).count()).toBe(0);
    const users = await page.goto(`${base}/users`);
    expect(users?.status()).toBe(403);
    await expect.poll(() => page.textContent('main')).toContain('vera may not do this');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => page.url()).toContain('/login');
  });

  it('lets an admin add a user on the Users page and make a key shown once', async () => {
    await signIn('ada');
    await page.getByRole('link', { name: 'Account' }).click();
    await expect.poll(() => page.textContent('main')).toContain('Signed in as ada, admin');
    await page.getByRole('link', { name: 'Users and their keys' }).click();
    await page.getByLabel('Name').fill('sam');
    await page.locator('form[action="/users"] select[name="role"]').selectOption('editor');
    await page.getByLabel('Password (12 characters or more)').fill(PASSWORD);
    await page.getByRole('button', { name: 'Add the user' }).click();
    await expect.poll(() => page.textContent('.notice')).toBe('Added sam (editor).');
    await expect.poll(() => page.getByRole('button', { name: 'Remove sam' }).count()).toBe(1);
    await screenshot(page, 'users-page');

    await page.goto(`${base}/account`);
    await page.getByLabel('Name').fill('prometheus');
    await page.locator('select[name="scope"]').selectOption('read');
    await page.getByRole('button', { name: 'Make a key' }).click();
    const key = await page.textContent('code.secret');
    expect(key).toMatch(/^rwk_[A-Za-z0-9_-]{43}$/);
    const me = await fetch(`${base}/api/v1/account`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(await me.json()).toMatchObject({ name: 'ada', scope: 'read', via: 'key: prometheus' });
    await page.goto(`${base}/account`);
    expect(await page.locator('code.secret').count()).toBe(0);
  });
});
