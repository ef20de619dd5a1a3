import { randomUUID } from 'node:crypto';
import { PostgresEventStore } from '@agency/platform';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '../../scripts/src/testing/test-product';
import { projections } from './projections';
import { rebuildReadModels } from './read-model/read-schema';

/** Every row of every table in `read`, so two read models can be compared whole. */
async function snapshot(db: pg.Pool) {
  const tables = await db.query(
    "select table_name from information_schema.tables where table_schema = 'read' and table_name <> 'checkpoint' order by 1",
  );
  const rows: Record<string, unknown[]> = {};
  for (const { table_name } of tables.rows) {
    const result = await db.query(`select * from read."${table_name}" t order by t::text`);
    rows[table_name] = result.rows;
  }
  return rows;
}

describe('npm run rebuild', () => {
  let product: TestProduct;
  let db: pg.Pool;
  beforeAll(async () => {
    product = await startTestProduct();
    db = new pg.Pool({ connectionString: product.databaseUrl });
  });
  afterAll(async () => {
    await db.end();
    await product.dispose();
  });

  it('rebuilds the real read models from the events into exactly the rows the live projections made', async () => {
    const token = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
    const post = async (url: string, payload: object) => {
      const response = await product.command.app.inject({
        method: 'POST',
        url,
        payload: { commandId: randomUUID(), ...payload },
        headers: { authorization: `Bearer ${token}` },
      });
      expect(response.statusCode).toBe(200);
      return response.json();
    };
    for (let i = 0; i < 5; i++) {
      const { client, contact } = await post('/api/clients/contact', {
        firstName: `Parent${i}`,
        lastName: 'Family',
        address: ['1 Road', 'Town'],
        postcode: 'AB1 2CD',
        email: `p${i}@example.com`,
        phone: [{ type: 'Home', number: '0100' }],
      });
      await post(`/api/contacts/${contact.id}`, { ...contact, postcode: 'ZZ9 9ZZ' });
      const { child } = await post(`/api/clients/child/${client.id}`, {
        firstName: 'Kid',
        lastName: 'Family',
        dob: '2014-05-06',
      });
      await post('/api/clients/child', { ...child, clientId: client.id, dob: '2014-05-07' });
      if (i % 2) await post(`/api/clients/active/${client.id}`, { id: client.id, active: false });
    }
    const live = await snapshot(db);
    expect(live.clients).toHaveLength(5);

    const store = await PostgresEventStore.connect(product.databaseUrl);
    try {
      await rebuildReadModels(db, store, projections);
    } finally {
      await store.close();
    }
    expect(await snapshot(db)).toEqual(live);
  });
});
