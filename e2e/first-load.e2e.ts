import {
  clientsReady,
  FIRST_LOAD_BUDGET_BYTES,
  firstLoadReport,
  loginReady,
  scriptsLoadedBy,
} from '@agency/bench/first-load';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchChromium } from './support/chromium';
import { logInAsAdmin } from './support/session';

describe('first-load JavaScript stays within 150 KB gzipped', () => {
  let browser: Browser;
  let signedIn: Page;

  beforeAll(async () => {
    browser = await launchChromium();
    signedIn = await logInAsAdmin(browser);
  });
  afterAll(() => browser?.close());

  it('the sign-in page', async () => {
    const context = await browser.newContext({ baseURL: inject('baseUrl') });
    const scripts = await scriptsLoadedBy(context, '/login', loginReady);
    await context.close();
    const { total, sizes } = firstLoadReport(scripts);
    expect(scripts.some((path) => /^\/assets\/index-.*\.js$/.test(path))).toBe(true);
    expect(total, JSON.stringify(sizes, null, 1)).toBeLessThanOrEqual(FIRST_LOAD_BUDGET_BYTES);
  });

  it('the clients list, signed in', async () => {
    // A new context with the session cookie only: an empty cache, as on a first visit.
    const context = await browser.newContext({
      baseURL: inject('baseUrl'),
      storageState: await signedIn.context().storageState(),
    });
    const scripts = await scriptsLoadedBy(context, '/clients', clientsReady);
    await context.close();
    const { total, sizes } = firstLoadReport(scripts);
    expect(scripts.some((path) => /clients-page-.*\.js$/.test(path))).toBe(true);
    expect(total, JSON.stringify(sizes, null, 1)).toBeLessThanOrEqual(FIRST_LOAD_BUDGET_BYTES);
  });
});
