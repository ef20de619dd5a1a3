import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningProduct, startProduct } from '@agency/scripts/product';

const ADMIN = { username: 'admin', password: 'e2e-clocked-admin-password' };

/**
 * The product as `npm start` runs it (its own embedded PostgreSQL in a throw-away DATA_DIR, the
 * built UI, mail to DATA_DIR/outbox), in the test's process with a clock the test moves: for
 * what only time brings (a month that has begun, an invoice overdue), which the run's shared
 * product, on the real clock, cannot show. It costs a database of its own: use it only for that.
 */
export async function startClockedProduct(start: Date) {
  let now = start;
  const dataDir = mkdtempSync(join(tmpdir(), 'agency-e2e-clock-'));
  let product: RunningProduct;
  try {
    product = await startProduct(
      {
        port: 0,
        host: '127.0.0.1',
        dataDir,
        adminUsername: ADMIN.username,
        adminPassword: ADMIN.password,
        jwtSecret: 'e2e-clocked-secret-e2e-clocked-secret',
        timeZone: 'Europe/London',
        publicUrl: 'http://localhost',
        mailFrom: 'Tutoring Agency <no-reply@localhost>',
        demoData: false,
      },
      { log: () => {}, logLevel: 'silent', clock: () => now },
    );
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  return {
    product,
    baseUrl: product.url,
    admin: ADMIN,
    dataDir,
    /** The commands' and queries' "now" from here on (the browser keeps its own). */
    setNow: (date: Date) => {
      now = date;
    },
    stop: async () => {
      await product.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
