import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_LOGIN_LIMITS } from '@agency/command-service';
import pg from 'pg';
import { afterAll, beforeAll, expect } from 'vitest';
import type { ProductConfig } from '../config';
import { type RunningProduct, startProduct } from '../product';
import { expectReadModelsEqualARebuild } from './rebuild-equality';
import { createTestDatabase } from './test-database';

export const TEST_ADMIN = { username: 'admin', password: 'admin-password-1' };

export type TestProduct = RunningProduct & {
  /** Log in through the real route; answers the token. */
  login: (username: string, password: string) => Promise<string>;
  /** Queries (through the port) and commands as this token's user, each expected to succeed. */
  api: (token: string) => {
    get: (url: string) => ReturnType<Response['json']>;
    post: (url: string, payload: object) => ReturnType<Response['json']>;
  };
  dispose: () => Promise<void>;
  /** Its DATA_DIR (the personal-data master key, the mail outbox). */
  dataDir: string;
};

/** The configuration a test starts the product with, on `databaseUrl` with `dataDir`, before its own overrides. */
export const testProductConfig = (databaseUrl: string, dataDir: string): ProductConfig => ({
  port: 0,
  host: '127.0.0.1',
  dataDir,
  databaseUrl,
  adminUsername: TEST_ADMIN.username,
  adminPassword: TEST_ADMIN.password,
  jwtSecret: 'test-secret-test-secret-test-secret',
  timeZone: 'Europe/London',
  publicUrl: 'http://localhost',
  mailFrom: 'Tutoring Agency <no-reply@localhost>',
  demoData: false,
});

/** The whole product (the app, the runner) on its own fresh database, for integration tests. */
export async function startTestProduct(
  overrides: Partial<ProductConfig> = {},
  options: Pick<NonNullable<Parameters<typeof startProduct>[1]>, 'reactorBackoff' | 'clock'> = {},
): Promise<TestProduct> {
  const database = await createTestDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'agency-product-'));
  const product = await startProduct(
    { ...testProductConfig(database.url, dataDir), ...overrides },
    {
      log: () => {},
      logLevel: 'silent',
      // Many tests log in from one address: only the per-username delay applies to them.
      loginLimits: { ...DEFAULT_LOGIN_LIMITS, freePerAddress: 1000 },
      // A reactor a test made fail tries again at once, not a second later.
      reactorBackoff: { firstMs: 10, maxMs: 100 },
      ...options,
    },
  );
  const login = async (username: string, password: string) => {
    const response = await product.command.app.inject({
      method: 'POST',
      url: '/auth/local',
      payload: { username, password },
    });
    if (response.statusCode !== 200) throw new Error(`login ${username}: ${response.statusCode} ${response.body}`);
    return response.json().token as string;
  };
  const api = (token: string) => ({
    get: async (url: string) => {
      const response = await fetch(`${product.url}${url}`, { headers: { authorization: `Bearer ${token}` } });
      expect(response.status, url).toBe(200);
      return response.json();
    },
    post: async (url: string, payload: object) => {
      const response = await product.command.app.inject({
        method: 'POST',
        url,
        payload: { commandId: randomUUID(), ...payload },
        headers: { authorization: `Bearer ${token}` },
      });
      expect(response.statusCode, response.body).toBe(200);
      return response.json();
    },
  });
  return {
    ...product,
    dataDir,
    login,
    api,
    dispose: async () => {
      await product.stop();
      try {
        // Every product-level test ends with its read models checked against a rebuild.
        await expectReadModelsEqualARebuild({ databaseUrl: database.url, dataDir });
      } finally {
        await database.drop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}

/**
 * For a describe block: a product started before its tests, with a pool on its database and the
 * admin's token, handed to `started`, and disposed after them.
 */
export function useTestProduct(started: (running: { product: TestProduct; db: pg.Pool; admin: string }) => void) {
  let product: TestProduct | undefined;
  let db: pg.Pool | undefined;
  beforeAll(async () => {
    product = await startTestProduct();
    db = new pg.Pool({ connectionString: product.databaseUrl });
    started({ product, db, admin: await product.login(TEST_ADMIN.username, TEST_ADMIN.password) });
  });
  afterAll(async () => {
    await db?.end();
    await product?.dispose();
  });
}
