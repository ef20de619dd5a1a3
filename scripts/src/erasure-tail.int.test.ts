import type { EventStore } from '@agency/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestProduct, TEST_ADMIN, type TestProduct } from './testing/test-product';
import { contact, testRequests } from './testing/test-requests';

/**
 * The reactors' shared tail of the log lets go of the events it holds open when the store's count
 * of erasures moves (command-service's log-tail.ts): the count must reach it through whatever the
 * product wraps the store in. With METRICS_TOKEN set, the store the reactors read is the one that
 * counts appends for the metrics, in front of the personal-data store that counts the erasures.
 */
describe('the store the reactors read, in the running product with its metrics on', () => {
  let product: TestProduct;
  let admin = '';
  const { ok } = testRequests(
    () => product,
    () => admin,
  );

  beforeAll(async () => {
    product = await startTestProduct({ metricsToken: 'metrics-token-metrics-token-metrics' });
    admin = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
  });
  afterAll(async () => {
    await product?.dispose();
  });

  it('counts an erasure, so the tail lets go of what it opened before it', async () => {
    // The store the reactors are given is the command tree's (its ReactorRunner is made with it).
    const store = product.command.deps.store as EventStore & { erasures?: () => number };
    expect(store.erasures).toBeTypeOf('function');
    const { client } = await ok('/api/clients/contact', contact('Wilhelmina', 'Tailworth'));
    const before = store.erasures?.() ?? 0;
    await ok(`/api/clients/erase/${client.id}`, { reason: 'Asked by the person', confirm: true });
    expect(store.erasures?.()).toBeGreaterThan(before);
  });
});
