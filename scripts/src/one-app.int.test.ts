import { randomUUID } from 'node:crypto';
import { Sessions } from '@agency/platform/sessions';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestProduct, TEST_ADMIN, type TestProduct } from './testing/test-product';

/** The TCP servers listening in this process (the test database runs in another). */
const listeners = () => process.getActiveResourcesInfo().filter((resource) => resource === 'TCPServerWrap').length;

describe('the product: one Fastify instance with both trees on one listener', () => {
  let product: TestProduct;
  let admin: string;
  let listening: { before: number; after: number };

  beforeAll(async () => {
    const before = listeners();
    product = await startTestProduct();
    listening = { before, after: listeners() };
    admin = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
  });
  afterEach(() => vi.restoreAllMocks());
  afterAll(() => product?.dispose());

  it('listens on exactly one port, where commands and queries are both answered', async () => {
    expect(listening.after - listening.before).toBe(1);
    const address = product.command.app.server.address();
    expect(typeof address === 'object' && address ? `http://localhost:${address.port}` : address).toBe(product.url);
    const trees = new Set(product.routes.map((route) => route.tree));
    expect([...trees].sort()).toEqual(['app', 'command', 'query']);
  });

  it('checks the session once for a GET the query tree answers, and once for a command answered with a view', async () => {
    // Every Sessions instance's checks, so a second one (a second app's) would be counted too.
    const checks = vi.spyOn(Sessions.prototype, 'check');
    const headers = { authorization: `Bearer ${admin}` };
    const read = await fetch(`${product.url}/api/clients`, { headers });
    expect(read.status).toBe(200);
    expect(checks).toHaveBeenCalledTimes(1);

    checks.mockClear();
    // Drafting a workshop invoice decides nothing: its answer is the query side's draft view.
    const drafted = await fetch(`${product.url}/api/events/createInvoice`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ commandId: randomUUID(), email: 'nobody@example.com' }),
    });
    expect(drafted.status).toBe(200);
    expect(await drafted.json()).toMatchObject({ email: 'nobody@example.com', registrations: [], total: 0 });
    expect(checks).toHaveBeenCalledTimes(1);
  });
});
