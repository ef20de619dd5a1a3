import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { BrowserContext, Page } from 'playwright-core';

/**
 * What a first visit loads (the light first load), measured the same way by the budget
 * test (e2e/first-load.e2e.ts) and by `npm run bench`: the scripts a fresh page asks for, gzipped
 * as the build's precompressed copies.
 */
const DIST = join(import.meta.dirname, '..', '..', 'ui', 'dist');

/** The JavaScript a first visit loads, gzipped, for the sign-in page and the clients list. */
export const FIRST_LOAD_BUDGET_BYTES = 150_000;

/** The scripts a fresh page (empty cache) asks for until `ready` holds, as paths under the server. */
export async function scriptsLoadedBy(context: BrowserContext, path: string, ready: (page: Page) => Promise<unknown>) {
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

/** Each script's gzipped size and their total. */
export function firstLoadReport(scripts: string[]) {
  const sizes = scripts.map((path) => ({ path, gzipped: gzippedSize(path) }));
  return { total: sizes.reduce((sum, { gzipped }) => sum + gzipped, 0), sizes };
}

/** Ready: the sign-in page's button, and the clients list's heading. */
export const loginReady = (page: Page) => page.getByRole('button', { name: 'Login' }).waitFor();
export const clientsReady = (page: Page) => page.getByRole('heading', { name: 'Clients' }).waitFor();
