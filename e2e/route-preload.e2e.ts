import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchChromium } from './support/chromium';
import { logInAsAdmin } from './support/session';

/**
 * A list screen opened from its address asks for its own scripts (and the signed-in shell's),
 * who is signed in and the list's first page from the start, alongside the app's main script,
 * instead of one after the other once the main script has run (ui/route-preload.ts:
 * the largest paint on a slow phone). The app takes those answers instead of asking again.
 */
describe('the opened screen’s scripts are fetched at once', () => {
  let browser: Browser;
  let signedIn: Page;

  beforeAll(async () => {
    browser = await launchChromium();
    signedIn = await logInAsAdmin(browser);
  });
  afterAll(() => browser?.close());

  /** What a first visit (empty cache) to `path` asks for, in order, until `heading` shows. */
  async function firstVisit(path: string, heading: string) {
    const context = await browser.newContext({
      baseURL: inject('baseUrl'),
      storageState: await signedIn.context().storageState(),
    });
    const page = await context.newPage();
    const asked: string[] = [];
    page.on('request', (request) => asked.push(new URL(request.url()).pathname));
    // Who asked for each request: the script whose code sent it.
    const askedBy = new Map<string, string[]>();
    const cdp = await context.newCDPSession(page);
    cdp.on('Network.requestWillBeSent', ({ request, initiator }) => {
      const { pathname, search } = new URL(request.url);
      const by = initiator.stack?.callFrames[0]?.url ?? initiator.url ?? initiator.type;
      askedBy.set(`${pathname}${search}`, [
        ...(askedBy.get(`${pathname}${search}`) ?? []),
        new URL(by, 'http://x').pathname,
      ]);
    });
    await cdp.send('Network.enable');
    await page.goto(path);
    await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
    await page.locator('table').first().waitFor();
    const preloaded = await page.$$eval('link[rel="modulepreload"]', (links) =>
      links.map((link) => new URL((link as HTMLLinkElement).href).pathname),
    );
    await context.close();
    return { asked, preloaded, askedBy };
  }

  for (const [path, heading, page, firstPage] of [
    ['/clients', 'Clients', /\/assets\/clients-page-.*\.js$/, '/api/clients?includeInactive=N&limit=100'],
    [
      '/lessons?year=2026&month=10',
      'Lessons',
      /\/assets\/lessons-page-.*\.js$/,
      '/api/lessons?year=2026&month=10&tutorId=&limit=100',
    ],
  ] as const) {
    it(`${path}: who is signed in and the first page are asked for by route-preload.js, once`, async () => {
      const { askedBy } = await firstVisit(path, heading);
      for (const get of ['/auth/local/me', firstPage]) {
        expect(askedBy.get(get), JSON.stringify([...askedBy], null, 1)).toEqual(['/route-preload.js']);
      }
    });

    it(`${path}: the page's and the shell's scripts before the app asks who is signed in`, async () => {
      const { asked, preloaded } = await firstVisit(path, heading);
      for (const script of [page, /\/assets\/signed-in-shell-.*\.js$/]) {
        expect(
          preloaded.some((href) => script.test(href)),
          preloaded.join('\n'),
        ).toBe(true);
        const at = asked.findIndex((url) => script.test(url));
        // The main script asks who is signed in as soon as it runs: these were asked for before.
        expect(at, asked.join('\n')).toBeGreaterThanOrEqual(0);
        expect(at, asked.join('\n')).toBeLessThan(asked.indexOf('/auth/local/me'));
        // Asked for once: the router's own load takes the preloaded script.
        expect(asked.filter((url) => script.test(url))).toHaveLength(1);
      }
    });
  }

  it('the sign-in page preloads no signed-in script', async () => {
    const context = await browser.newContext({ baseURL: inject('baseUrl') });
    const page = await context.newPage();
    const asked: string[] = [];
    page.on('request', (request) => asked.push(new URL(request.url()).pathname));
    await page.goto('/login');
    await page.getByRole('button', { name: 'Login' }).waitFor();
    await context.close();
    expect(asked.filter((url) => /signed-in-shell|clients-page|lessons-page/.test(url))).toEqual([]);
  });
});
