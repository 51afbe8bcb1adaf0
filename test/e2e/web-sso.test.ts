/**
 * Single sign-on in a real browser (Debian's Chromium) against a real `robowatch serve`
 * and a real OpenID provider (oidc-provider) on loopback: "Sign in with Acme login", the
 * provider's sign-in and consent pages, and back signed in as an agency's viewer who sees
 * only the site with the agency's tag. The browser may reach loopback only.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot, serveHistory } from '../support/browser-site.js';
import type { ServedHistory } from '../support/browser-site.js';
import { FixtureServer } from '../support/fixture-server.js';
import { CLIENT_SECRET, startTestProvider } from '../support/oidc-provider.js';
import type { TestProvider } from '../support/oidc-provider.js';

const shop = new FixtureServer();
const blog = new FixtureServer();
let idp: TestProvider;
let served: ServedHistory;
let browser: Browser;
let page: Page;
let base: string;

beforeAll(async () => {
  idp = await startTestProvider(() => ({ preferred_username: 'sam', groups: ['agency'] }));
  const { issuer } = idp;
  await Promise.all([shop.start(), blog.start()]);
  blog.serve('/robots.txt', 200, 'User-agent: *\nDisallow: /drafts/\n');
  served = await serveHistory(
    shop,
    (dataDir) => `dataDir: ${dataDir}
agents: [Googlebot]
sites:
  - {url: '${shop.origin}', name: Shop, tags: [client-a], watch: [/, /pricing]}
  - {url: '${blog.origin}', name: Blog, tags: [client-b], watch: [/]}
sitemaps: off
fetch: {allowPrivateAddresses: 'loopback', confirmRetries: 0, timeoutMs: 3000}
web:
  listen: '127.0.0.1:0'
  sso:
    issuer: '${issuer}'
    clientId: robowatch
    clientSecret: '${CLIENT_SECRET}'
    label: Acme login
    scopes: [openid, profile, groups]
    roles: {viewer: [agency]}
    tags: {agency: [client-a]}
`,
    [[200, 'User-agent: *\nDisallow: /admin/\n']],
  );
  ({ base, browser } = served);
  // The provider knows robowatch's callback once robowatch listens.
  idp.serve(`${base}/login/oidc/callback`);
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  // The provider's development pages link a web font: nothing leaves this machine.
  await context.route('**/*', (route) =>
    new URL(route.request().url()).hostname === '127.0.0.1' ? route.continue() : route.abort(),
  );
  page = await context.newPage();
}, 90_000);

afterAll(async () => {
  await served?.stop();
  await Promise.all([shop.stop(), blog.stop()]);
  await idp?.stop();
});

describe('single sign-on in Chromium', () => {
  it('signs an agency member in at the provider; they see only their tag’s site', async () => {
    await page.goto(base);
    await expect.poll(() => page.url()).toContain('/login');
    await page.getByRole('link', { name: 'Sign in with Acme login' }).click();
    await expect.poll(() => page.url()).toContain('/interaction/');
    await page.fill('input[name="login"]', 'sub-sam');
    await page.fill('input[name="password"]', 'anything');
    await page.click('button[type="submit"]');
    // The provider asks once for consent to share the profile and groups.
    await expect.poll(() => page.textContent('body')).toMatch(/Authorize|Continue/);
    await page.click('button[type="submit"]');
    await expect.poll(() => page.url()).toBe(`${base}/`);
    await expect.poll(() => page.textContent('h1')).toBe('Sites');
    const main = (await page.textContent('main')) ?? '';
    expect(main).toContain('Shop');
    expect(main).not.toContain('Blog');
    expect(main).toContain('You may read: adding and editing sites needs an editor’s');
    await screenshot(page, 'sso-agency-overview');
    await page.goto(`${base}/account`);
    await expect.poll(() => page.textContent('main')).toContain('sam');
  });
});
