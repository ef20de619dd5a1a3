import type { Browser, Page } from 'playwright-core';
import { inject } from 'vitest';

export const logIn = (browser: Browser, username: string, password: string) =>
  logInAt(browser, inject('baseUrl'), username, password);

/** As `logIn`, to a product of the test's own (e2e/support/clocked-product.ts). */
export async function logInAt(browser: Browser, baseUrl: string, username: string, password: string): Promise<Page> {
  const context = await browser.newContext({ baseURL: baseUrl, viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto('/login');
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Login' }).click();
  await page.waitForURL('**/clients');
  return page;
}

export const logInAsAdmin = (browser: Browser) => logIn(browser, inject('admin').username, inject('admin').password);
