/**
 * The web UI's layout in a real browser (Debian's Chromium): no page scrolls sideways on a
 * 390 px phone or on a 1280 px screen with the default 24 crawlers (wide tables scroll in
 * their own box), the dark theme follows the system's, and the main flows work from the
 * keyboard alone. Screenshots go to test-results/screenshots/.
 */
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveHistory, SHOTS } from '../support/browser-site.js';
import type { ServedHistory } from '../support/browser-site.js';
import { FixtureServer } from '../support/fixture-server.js';
import { HISTORY } from '../support/site-history.js';

/** The slice of the browser's window the page scripts below use (no DOM lib in tsconfig). */
interface BrowserDocument {
  documentElement: { scrollWidth: number; clientWidth: number };
}
interface BrowserWindow {
  getComputedStyle(element: unknown): { backgroundColor: string; color: string };
}

const TOKEN = 'layout-test-token-0123456789';

const site = new FixtureServer();
let served: ServedHistory;
let browser: Browser;
let base: string;

beforeAll(async () => {
  await site.start();
  // The default crawlers (24), a long name, tags and a long watched path.
  served = await serveHistory(
    site,
    (dataDir) => `dataDir: ${dataDir}
sites:
  - url: ${site.origin}
    name: The shop with a rather long name, as people write them
    tags: [shop, eu, production]
    watch: [/, /pricing, /private/x, /blog/post, /a/very/long/path/that/goes/on/and/on/and/on/for/a/while/index.html]
fetch: {allowPrivateAddresses: 'loopback', confirmRetries: 0, timeoutMs: 3000}
web: {listen: '127.0.0.1:0', token: ${TOKEN}}
`,
    [
      [200, HISTORY.v1],
      [200, HISTORY.v2],
      [503, 'down'],
      [200, HISTORY.v2],
    ],
  );
  ({ base, browser } = served);
}, 90_000);

afterAll(async () => {
  await served?.stop();
  await site.stop();
});

const PAGES = [
  ['overview', '/'],
  ['site', '/sites/1'],
  ['diff', '/sites/1/diff'],
  ['snapshot', '/sites/1/snapshots/1'],
  ['tester', '/tester?site=1'],
  ['digests', '/digests'],
  ['add-site', '/sites/new'],
] as const;

async function signedInPage(width: number, colorScheme: 'light' | 'dark' = 'light') {
  const context = await browser.newContext({
    viewport: { width, height: 900 },
    colorScheme,
    extraHTTPHeaders: { authorization: `Bearer ${TOKEN}` },
  });
  return { context, page: await context.newPage() };
}

describe('the web UI on a phone and a wide screen', () => {
  for (const width of [390, 1280])
    it(`scrolls no page sideways at ${width} px with 24 crawlers`, async () => {
      const { context, page } = await signedInPage(width);
      try {
        const overflowing: string[] = [];
        for (const [name, path] of PAGES) {
          const response = await page.goto(`${base}${path}`);
          expect(response?.status(), path).toBe(200);
          const { scroll, client } = await page.evaluate(() => {
            const root = (globalThis as unknown as { document: BrowserDocument }).document
              .documentElement;
            return { scroll: root.scrollWidth, client: root.clientWidth };
          });
          if (scroll > client) overflowing.push(`${path}: ${scroll} px wide in ${client} px`);
          if (width === 390)
            await page.screenshot({ path: join(SHOTS, `phone-${name}.png`), fullPage: true });
        }
        expect(overflowing).toEqual([]);
      } finally {
        await context.close();
      }
    });

  it('sizes a filter’s drop-downs to their choices, not the page’s width', async () => {
    const { context, page } = await signedInPage(1280);
    try {
      const widths: Record<string, number[]> = {};
      for (const path of ['/trends', '/incidents']) {
        expect((await page.goto(`${base}${path}`))?.status(), path).toBe(200);
        const selects = await page.locator('form.filter select').all();
        widths[path] = await Promise.all(
          selects.map(async (select) => (await select.boundingBox())?.width ?? 0),
        );
      }
      // Every page above has one; none stretches across the page (1,152 px before).
      for (const [path, found] of Object.entries(widths)) {
        expect(found.length, path).toBeGreaterThan(0);
        for (const width of found) expect(width, path).toBeLessThan(640);
      }
    } finally {
      await context.close();
    }
  });

  it('follows the system’s dark theme', async () => {
    const { context, page } = await signedInPage(1280, 'dark');
    try {
      await page.goto(`${base}/sites/1`);
      const { background, color } = await page.evaluate(() => {
        const g = globalThis as unknown as { window: BrowserWindow; document: { body: unknown } };
        const style = g.window.getComputedStyle(g.document.body);
        return { background: style.backgroundColor, color: style.color };
      });
      const luminance = (rgb: string) => {
        const [r, g, b] = rgb.match(/\d+/g)!.map(Number);
        return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
      };
      expect(luminance(background)).toBeLessThan(60);
      expect(luminance(color)).toBeGreaterThan(180);
      await page.screenshot({ path: join(SHOTS, 'dark-site.png') });
    } finally {
      await context.close();
    }
  });

  it('adds a site with the keyboard alone', async () => {
    const { context, page } = await signedInPage(1280);
    try {
      await page.goto(`${base}/`);
      // Tab to "Add a site" and follow it.
      for (let i = 0; i < 30; i++) {
        await page.keyboard.press('Tab');
        const focused = await page.evaluate(
          () =>
            (
              globalThis as unknown as {
                document: { activeElement: { textContent: string } | null };
              }
            ).document.activeElement?.textContent ?? '',
        );
        if (focused === 'Add a site') break;
      }
      await page.keyboard.press('Enter');
      await page.waitForURL(`${base}/sites/new`);
      // The site field takes the focus (autofocus) once the page is ready: wait for it,
      // then type, tab to the watched URLs, type, submit.
      await expect
        .poll(() =>
          page.evaluate(
            () =>
              (
                globalThis as unknown as {
                  document: { activeElement: { getAttribute(name: string): string | null } | null };
                }
              ).document.activeElement?.getAttribute('name') ?? null,
          ),
        )
        .toBe('url');
      await page.keyboard.type(site.origin.replace('127.0.0.1', 'localhost'));
      await page.keyboard.press('Tab'); // name
      await page.keyboard.press('Tab'); // tags
      await page.keyboard.press('Tab'); // watched URLs
      await page.keyboard.type('/');
      for (let i = 0; i < 10; i++) {
        const label = await page.evaluate(
          () =>
            (
              globalThis as unknown as {
                document: { activeElement: { textContent: string } | null };
              }
            ).document.activeElement?.textContent ?? '',
        );
        if (label === 'Add and check now') break;
        await page.keyboard.press('Tab');
      }
      await page.keyboard.press('Enter');
      await expect
        .poll(() => page.textContent('.notice'))
        .toBe('Checked now: its first snapshot (the baseline) is below.');
    } finally {
      await context.close();
    }
  });
});
