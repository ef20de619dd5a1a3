import type pg from 'pg';

/**
 * Runs `work` in one transaction on a connection of its own: committed when it returns, rolled
 * back when it throws (the error is thrown on), and the connection returned either way.
 */
export async function inTransaction<T>(db: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await db.connect();
  try {
    await client.query('begin');
    const result = await work(client);
    await client.query('commit');
    return result;
  } catch (error) {
    await client.query('rollback').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
