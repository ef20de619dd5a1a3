import type { Browser, Page } from 'playwright-core';
import { inject } from 'vitest';

export async function logIn(browser: Browser, username: string, password: string): Promise<Page> {
  const context = await browser.newContext({ baseURL: inject('baseUrl'), viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto('/login');
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Login' }).click();
  await page.waitForURL('**/clients');
  return page;
}

export const logInAsAdmin = (browser: Browser) => logIn(browser, inject('admin').username, inject('admin').password);
