import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { type Browser, type BrowserServer, chromium, type Download, type Page } from 'playwright-core';
import { expect, inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    chromiumEndpoint: string;
  }
}

export function chromiumPath(): string {
  const path = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  if (!existsSync(path)) {
    throw new Error(
      `Chromium was not found at ${path}. Install Debian's (apt-get install -y chromium) or set CHROMIUM_PATH.`,
    );
  }
  return path;
}

/**
 * Debian's Chromium, with the flags this closed network needs (no background networking), as a
 * server the test files connect to: started once for the run by the e2e global setup.
 */
export function launchChromiumServer(): Promise<BrowserServer> {
  return chromium.launchServer({
    executablePath: chromiumPath(),
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * A connection to the run's Chromium: each test file has its own, and each context it opens is
 * a fresh, empty profile of its own. `close()` ends the connection and the contexts opened
 * through it, not the browser the other files share.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.connect(inject('chromiumEndpoint'));
}

/** A download's bytes, read through the connection: the browser's side keeps the file, so there is no local path. */
export async function downloaded(download: Download): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await download.createReadStream()) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const SCREENSHOTS = join(import.meta.dirname, '..', 'screenshots');

/**
 * A picture of the page for a person to look at, never compared by a test: taken only when
 * E2E_SCREENSHOTS=1 (`npm run test:screens`), as the full-page captures cost the browser tier
 * a sizeable part of its time and every run would otherwise pay for them.
 */
export async function screenshot(page: Page, name: string) {
  if (process.env.E2E_SCREENSHOTS !== '1') return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/**
 * No serious or critical accessibility violations on the page as it is now. Every rule runs; axe
 * runs them in the page itself (legacy mode) instead of opening a blank page on each run to put
 * the results of the page's frames together, which took most of a run's time. What legacy mode
 * leaves out is only the inside of frames from another origin, and the UI has no frames. Only
 * the violations are collected in full, as only they are read.
 */
export async function expectAccessible(page: Page) {
  const results = await new AxeBuilder({ page })
    .setLegacyMode(true)
    .options({ resultTypes: ['violations'] })
    .analyze();
  const bad = results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  expect(bad).toEqual([]);
}
