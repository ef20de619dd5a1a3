import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchChromium } from './support/chromium';
import { logInAsAdmin } from './support/session';

const DIST = join(import.meta.dirname, '..', 'ui', 'dist');

/** Issue 17: the JavaScript a first visit loads, gzipped, for the sign-in page and the clients list. */
const BUDGET_BYTES = 150_000;

/** The scripts a fresh page (empty cache) asks for until `ready` holds, as paths under the server. */
async function scriptsLoadedBy(context: BrowserContext, path: string, ready: (page: Page) => Promise<unknown>) {
  const page = await context.newPage();
  const scripts = new Set<string>();
  page.on('request', (request) => {
    if (request.resourceType() === 'script') scripts.add(new URL(request.url()).pathname);
  });
  await page.goto(path);
  await ready(page);
  await page.close();
  return [...scripts];
}

/** Gzip level 9, as the build's precompressed copies (a size, measured from ui/dist, not a transfer time). */
const gzippedSize = (path: string) => gzipSync(readFileSync(join(DIST, path)), { level: 9 }).length;

function report(scripts: string[]) {
  const sizes = scripts.map((path) => ({ path, gzipped: gzippedSize(path) }));
  return { total: sizes.reduce((sum, { gzipped }) => sum + gzipped, 0), sizes };
}

describe('first-load JavaScript stays within 150 KB gzipped (issue 17)', () => {
  let browser: Browser;
  let signedIn: Page;

  beforeAll(async () => {
    browser = await launchChromium();
    signedIn = await logInAsAdmin(browser);
  });
  afterAll(() => browser?.close());

  it('the sign-in page', async () => {
    const context = await browser.newContext({ baseURL: inject('baseUrl') });
    const scripts = await scriptsLoadedBy(context, '/login', (page) =>
      page.getByRole('button', { name: 'Login' }).waitFor(),
    );
    await context.close();
    const { total, sizes } = report(scripts);
    expect(scripts.some((path) => /^\/assets\/index-.*\.js$/.test(path))).toBe(true);
    expect(total, JSON.stringify(sizes, null, 1)).toBeLessThanOrEqual(BUDGET_BYTES);
  });

  it('the clients list, signed in', async () => {
    // A new context with the session cookie only: an empty cache, as on a first visit.
    const context = await browser.newContext({
      baseURL: inject('baseUrl'),
      storageState: await signedIn.context().storageState(),
    });
    const scripts = await scriptsLoadedBy(context, '/clients', (page) =>
      page.getByRole('heading', { name: 'Clients' }).waitFor(),
    );
    await context.close();
    const { total, sizes } = report(scripts);
    expect(scripts.some((path) => /clients-page-.*\.js$/.test(path))).toBe(true);
    expect(total, JSON.stringify(sizes, null, 1)).toBeLessThanOrEqual(BUDGET_BYTES);
  });
});
