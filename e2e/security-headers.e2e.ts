import type { Browser, ConsoleMessage, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchChromium } from './support/chromium';

declare global {
  interface Window {
    __cspViolations?: string[];
  }
}

/**
 * The built UI under the product's Content-Security-Policy: every screen draws, Emotion's styles
 * apply, and the browser reports no violation and no CSP console error.
 */
describe('the UI under the Content-Security-Policy', () => {
  let browser: Browser;
  let page: Page;
  const cspConsoleErrors: string[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
    const context = await browser.newContext({ baseURL: inject('baseUrl'), viewport: { width: 1280, height: 900 } });
    // Recorded from the first script on, in every document the page loads.
    await context.addInitScript(() => {
      window.__cspViolations = [];
      document.addEventListener('securitypolicyviolation', (event) => {
        window.__cspViolations?.push(`${event.violatedDirective} ${event.blockedURI}`);
      });
    });
    page = await context.newPage();
    page.on('console', (message: ConsoleMessage) => {
      // Chrome reports a blocked script, style, frame or connection as "Refused to … Content Security Policy".
      if (/Content Security Policy|Refused to/i.test(message.text())) cspConsoleErrors.push(message.text());
    });
  });
  afterAll(() => browser?.close());

  const violations = () => page.evaluate(() => window.__cspViolations ?? []);

  it('serves the app with the CSP, and the login screen draws with its styles', async () => {
    const response = await page.goto('/login');
    const csp = response?.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    await page.getByRole('button', { name: 'Login' }).waitFor();
    // Emotion's rules are in force: its <style> elements hold rules the browser accepted.
    const emotionRules = await page.evaluate(() =>
      [...document.querySelectorAll('style[data-emotion]')].reduce(
        (count, element) => count + ((element as HTMLStyleElement).sheet?.cssRules.length ?? 0),
        0,
      ),
    );
    expect(emotionRules).toBeGreaterThan(0);
    expect(await violations()).toEqual([]);
  });

  it('logs in and draws every main screen with no CSP violation and no CSP console error', async () => {
    await page.getByLabel('Username').fill(inject('admin').username);
    await page.getByLabel('Password').fill(inject('admin').password);
    await page.getByRole('button', { name: 'Login' }).click();
    await page.waitForURL('**/clients');
    await page.getByRole('heading', { name: 'Clients' }).waitFor();
    for (const [path, heading] of [
      ['/tutors', 'Tutors'],
      ['/lessons', 'Lessons'],
      ['/invoices', 'Invoices'],
      ['/clients', 'Clients'],
    ] as const) {
      await page.goto(path);
      await page.getByRole('heading', { name: heading }).first().waitFor();
      expect(await violations(), path).toEqual([]);
    }
    expect(cspConsoleErrors).toEqual([]);
  });
});
