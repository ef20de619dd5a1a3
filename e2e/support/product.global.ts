import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@agency/scripts/embedded-database';
import { keepFailingExitCode } from '@agency/scripts/testing/keep-exit-code';
import type { TestProject } from 'vitest/node';
import { chromiumPath, launchChromiumServer } from './chromium';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    admin: { username: string; password: string };
    dataDir: string;
  }
}

const ADMIN = { username: 'admin', password: 'e2e-admin-password' };

/**
 * Runs the product as `npm start` does (embedded PostgreSQL, both services, the built UI) in a
 * throw-away DATA_DIR on a free port, and one Chromium, for the browser tests.
 */
export default async function setup(project: TestProject) {
  keepFailingExitCode();
  chromiumPath();
  // Started beside the product; every test file connects to it (one launch per file cost more
  // than the files' own work in the shorter ones).
  const browser = launchChromiumServer();
  // A launch that fails is reported where it is awaited, below, once the product is up.
  browser.catch(() => {});
  const stopBrowser = async () => (await browser.catch(() => undefined))?.close();
  const dataDir = mkdtempSync(join(tmpdir(), 'agency-e2e-'));
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'scripts/src/start.ts'], {
    env: {
      ...process.env,
      PORT: String(port),
      DATA_DIR: dataDir,
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_PASSWORD: ADMIN.password,
      DEMO_DATA: '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`The product did not start in time:\n${output}`)), 120_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('is ready at')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.on('exit', (code) => reject(new Error(`The product exited (${code}) before it was ready:\n${output}`)));
  });
  const stopProduct = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  try {
    await ready;
    project.provide('chromiumEndpoint', (await browser).wsEndpoint());
  } catch (error) {
    // Neither the browser nor the product is left running by a setup that failed.
    await stopBrowser();
    await stopProduct();
    throw error;
  }
  project.provide('baseUrl', `http://localhost:${port}`);
  project.provide('admin', ADMIN);
  project.provide('dataDir', dataDir);
  return async () => {
    await stopBrowser();
    await stopProduct();
    rmSync(dataDir, { recursive: true, force: true });
  };
}
