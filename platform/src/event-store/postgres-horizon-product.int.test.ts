import { randomUUID } from 'node:crypto';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Read-your-writes through the whole product while something unrelated keeps a write transaction
 * open on its database: the projections, reactors and the command's wait go on past it.
 */
describe('the product beside a long unrelated write transaction', () => {
  let product: TestProduct;
  let admin: string;
  const clients: pg.Client[] = [];

  beforeAll(async () => {
    product = await startTestProduct();
    admin = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
  });
  afterAll(async () => {
    for (const client of clients) await client.end().catch(() => {});
    await product?.dispose();
  });

  /** A transaction on the product's database with a transaction id, left open until the test ends it. */
  const openWriter = async (statements: string[]) => {
    const client = new pg.Client({ connectionString: product.databaseUrl });
    await client.connect();
    clients.push(client);
    await client.query('begin');
    for (const statement of statements) await client.query(statement);
    const { xid } = (await client.query('select pg_current_xact_id_if_assigned()::text as xid')).rows[0];
    expect(xid).not.toBeNull();
    return client;
  };

  it('a command answers visible: true, and its answer shows the write, while the other transaction is still open', async () => {
    const scratch = `scratch_${randomUUID().replaceAll('-', '')}`;
    // As `npm run verify`, an as-of view or another application sharing the cluster might.
    const unrelated = [
      await openWriter(['create temp table scratch (x int)', 'insert into scratch values (1)']),
      await openWriter([`create schema ${scratch}`, `create table ${scratch}.t as select 1 as x`]),
    ];

    const response = await product.command.app.inject({
      method: 'POST',
      url: '/api/clients/contact',
      payload: {
        commandId: randomUUID(),
        firstName: 'Una',
        lastName: 'Related',
        address: ['1 High Street', '', 'Oxford', ''],
        postcode: 'OX1 1AA',
        email: 'una.related@example.com',
        phone: [{ type: 'Mobile', number: '07700 900001' }],
      },
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(response.statusCode, response.body).toBe(200);
    const answer = response.json();
    expect(answer.visible).toBe(true);
    expect(answer.client).toMatchObject({ id: expect.any(String) });

    for (const client of unrelated) {
      // Still open: it never ended to let the command through.
      expect((await client.query('select pg_current_xact_id_if_assigned() is not null as open')).rows[0].open).toBe(
        true,
      );
      await client.query('rollback');
    }
  });
});
