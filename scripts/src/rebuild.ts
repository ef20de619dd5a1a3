import { assertStorePositionsValid, PostgresEventStore } from '@agency/platform';
import { projections, rebuildReadModels } from '@agency/projection-service';
import { SingleBar } from 'cli-progress';
import pg from 'pg';
import { configFromEnvironment } from './config';
import { openDatabase } from './database';

// Works beside a running `npm start` (it joins its database) or on its own.
const config = configFromEnvironment();
const database = await openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
const store = await PostgresEventStore.connect(database.url);
const pool = new pg.Pool({ connectionString: database.url });
pool.on('error', () => {});
try {
  await assertStorePositionsValid(pool);
  const total = Number((await pool.query('select count(*) from es.events')).rows[0].count);
  const bar = new SingleBar({
    format: 'Rebuilding read models [{bar}] {percentage}% | {value}/{total} events | {eta}s left',
  });
  bar.start(total, 0);
  const { applied } = await rebuildReadModels(pool, store, projections, (n) => bar.update(Math.min(n, total)));
  bar.update(applied);
  bar.stop();
  console.log(`Rebuilt every read model from ${applied} events and swapped it in.`);
} finally {
  await store.close();
  await pool.end();
  await database.stop();
}
