import pg from 'pg';
import { configFromEnvironment } from './config';
import { openDatabase } from './database';
import { rebaseStore } from './store-positions';

// `npm run store:rebase [-- --force]`: after restoring a dump into another cluster, with the product stopped.
const force = process.argv.includes('--force');
const config = configFromEnvironment();
const database = await openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
const pool = new pg.Pool({ connectionString: database.url, max: 2 });
pool.on('error', () => {});
try {
  const outcome = await rebaseStore(pool, { force });
  if (!outcome.rebased) {
    console.log('The event store positions are valid in this cluster: nothing to do (--force rebases anyway).');
  } else {
    console.log(
      `Renumbered ${outcome.events} events (${outcome.transactions} transactions; the newest id was ${outcome.newest ?? 'none'}, ` +
        `this cluster was at ${outcome.next}).`,
    );
    console.log(
      outcome.dropped.length > 0
        ? `Dropped the read models (${outcome.dropped.join(', ')}): the next start rebuilds them.`
        : 'There were no read models: the next start builds them.',
    );
  }
} finally {
  await pool.end();
  await database.stop();
}
