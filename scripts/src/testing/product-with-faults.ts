import { injectFaults } from '@agency/command-service/race-points';
import pg from 'pg';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { startTestProduct, TEST_ADMIN, type TestProduct } from './test-product';

export { type FaultStep, injectFaults } from '@agency/command-service/race-points';

export type StartedProduct = { product: TestProduct; db: pg.Pool; admin: string };

/**
 * A product for tests that make commands fail at chosen steps (`injectFaults`):
 * started once for the file with a pool on its database and the admin's token; the fault hook is
 * taken off after each test, so a test's crash never reaches the next one.
 */
export function useProductWithFaults(started: (running: StartedProduct) => void) {
  let running: StartedProduct | undefined;
  beforeAll(async () => {
    const product = await startTestProduct();
    const db = new pg.Pool({ connectionString: product.databaseUrl });
    running = { product, db, admin: await product.login(TEST_ADMIN.username, TEST_ADMIN.password) };
    started(running);
  });
  afterEach(() => {
    injectFaults(undefined);
  });
  afterAll(async () => {
    await running?.db.end();
    await running?.product.dispose();
  });
}
