import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
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
    await checkReachable(process.env.TEST_DATABASE_URL);
    project.provide('databaseUrl', process.env.TEST_DATABASE_URL);
    return;
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'agency-test-'));
  const database = await startEmbeddedDatabase({ dataDir, database: 'postgres', durable: false }).catch(
    (error: unknown) => {
      rmSync(dataDir, { recursive: true, force: true });
      throw new Error(`The embedded PostgreSQL for the integration tests could not start: ${messageOf(error)}`);
    },
  );
  project.provide('databaseUrl', database.url);
  return async () => {
    await database.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** A database given from outside is tried once here, so that a wrong one fails the run with one clear line. */
async function checkReachable(url: string) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  try {
    await client.connect();
    await client.query('select 1');
  } catch (error) {
    throw new Error(`PostgreSQL at TEST_DATABASE_URL could not be reached: ${messageOf(error)}`);
  } finally {
    await client.end().catch(() => {});
  }
}
