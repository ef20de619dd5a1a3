import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedDatabase } from '../embedded-database';
import { keepFailingExitCode } from './keep-exit-code';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}

/** One embedded PostgreSQL for the whole run; each test file makes its own database in it. */
export default async function setup(project: TestProject) {
  keepFailingExitCode();
  if (process.env.TEST_DATABASE_URL) {
    project.provide('databaseUrl', process.env.TEST_DATABASE_URL);
    return;
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'agency-test-'));
  const database = await startEmbeddedDatabase({ dataDir, database: 'postgres' });
  project.provide('databaseUrl', database.url);
  return async () => {
    await database.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
}
