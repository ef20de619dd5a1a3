import { SingleBar } from 'cli-progress';
import pg from 'pg';
import { configFromEnvironment } from './config';
import { openDatabase } from './database';
import { encryptStore } from './encrypt-store';
import { openPersonalData } from './personal-data';

// `npm run store:encrypt`: once, for a PostgreSQL store written before personal data was
// encrypted (DATABASE_URL, or the embedded one in DATA_DIR). Stop the product first. Every event
// is copied into a new table with its personal fields sealed under its subject's key (the keys go
// into pii.subject_keys, wrapped by DATA_DIR/personal-data-key or PERSONAL_DATA_KEY: use the one
// the product uses), order, ids, revisions, metadata and recorded times kept; the copy is checked
// against the original (per stream, and every event); then, in one transaction, it replaces
// es.events, the clear table is dropped (no backup of clear personal data is kept: take a backup
// of the database before, and destroy it after), and the read models are dropped so the next
// start rebuilds them. Running it again on an encrypted store changes nothing but the rebuild.
const config = configFromEnvironment({ ...process.env, EVENT_STORE: 'postgres' });
const database = await openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
const personalData = await openPersonalData(config.dataDir, database.url);
const pool = new pg.Pool({ connectionString: database.url, max: 3 });
pool.on('error', () => {});
const bar = new SingleBar({ format: 'Encrypting events [{bar}] {percentage}% | {value}/{total}' });
try {
  bar.start(0, 0);
  const outcome = await encryptStore(pool, personalData.vault, {
    onProgress: (done, total) => {
      bar.setTotal(total);
      bar.update(done);
    },
  });
  bar.stop();
  console.log(
    `Encrypted the personal fields of ${outcome.encrypted} of ${outcome.events} events (${outcome.streams} streams), ` +
      'verified the copy and swapped it in; the clear table is dropped.',
  );
  console.log(
    outcome.dropped.length > 0
      ? `Dropped the read models (${outcome.dropped.join(', ')}): the next start rebuilds them.`
      : 'There were no read models: the next start builds them.',
  );
} catch (error) {
  bar.stop();
  console.error(`store:encrypt failed, es.events is as it was: ${error instanceof Error ? error.message : error}`);
  process.exitCode = 1;
} finally {
  await pool.end();
  await personalData.close();
  await database.stop();
}
