import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { startTestProduct, TEST_ADMIN } from './testing/test-product';
import { contact } from './testing/test-requests';

describe('every test product is checked against a rebuild as it is disposed of', () => {
  it('a live row a rebuild would not make fails the disposal, naming the table and the rows', async () => {
    const product = await startTestProduct();
    const admin = product.api(await product.login(TEST_ADMIN.username, TEST_ADMIN.password));
    const { client } = await admin.post('/api/clients/contact', contact('Rita', 'Rebuilt'));
    const db = new pg.Pool({ connectionString: product.databaseUrl });
    try {
      // A projection that wrote what its events do not say (here written by hand).
      await db.query("update read.contacts set postcode = 'ZZ9 9ZZ' where client_id = $1", [client.id]);
    } finally {
      await db.end();
    }
    const disposed = product.dispose();
    await expect(disposed).rejects.toThrow(
      /contacts: 1 live row\(s\) a rebuild does not make, 1 rebuilt row\(s\) not live/,
    );
    await expect(disposed).rejects.toThrow(/live: +\{.*"ZZ9 9ZZ".*\}\n +rebuilt: +\{.*"OX1 1AA".*\}/);
  });
});
