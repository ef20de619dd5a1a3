import { SingleBar } from 'cli-progress';
import pg from 'pg';
import { configFromEnvironment } from './config';
import { openDatabase } from './database';
import { openEventStore } from './event-store-choice';
import { openPersonalData } from './personal-data';
import { type VerifyProgress, verifyProduct } from './verify-store';

// `npm run verify`: recomputes everything from the events and compares; exits 1 on any difference.
// Works beside a running `npm start` (it joins its database) or on its own.
const config = configFromEnvironment();
const database = await openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
// Read through the personal-data layer, as the live runner reads.
const personalData = await openPersonalData(config.dataDir, database.url);
const store = personalData.protect(await openEventStore(config.eventStore, database.url));
const pool = new pg.Pool({ connectionString: database.url });
const readDb = new pg.Pool({ connectionString: database.url, options: '-c search_path=read' });
pool.on('error', () => {});
readDb.on('error', () => {});

const bar = new SingleBar({ format: 'Verifying {phase} [{bar}] {value}/{total}' });
let phase: VerifyProgress['phase'] | undefined;
const progress = (step: VerifyProgress) => {
  if (step.phase !== phase) {
    if (phase) bar.stop();
    phase = step.phase;
    bar.start(step.total, 0, { phase });
  }
  bar.setTotal(step.total);
  bar.update(step.done, { phase });
};

let exitCode = 1;
try {
  const report = await verifyProduct(pool, readDb, store, config.timeZone, progress);
  bar.stop();
  console.log(
    `Replayed ${report.events} events in ${report.streams} streams, recomputed ${report.invoices} invoices, checked ${report.familyInvoices} family invoices, compared every read model with a rebuild.`,
  );
  const { compared, rendered, erased, unrecorded } = report.documents;
  console.log(
    `Rebuilt ${compared} issued documents and compared their content hashes with their records (${erased} with their subject erased since), and the bytes of ${rendered} of them; ${unrecorded} were issued before records were kept or are not recorded yet.`,
  );
  if (report.differences.length === 0) {
    console.log('Everything agrees.');
    exitCode = 0;
  } else {
    console.log(`${report.differences.length} difference(s):`);
    for (const difference of report.differences) console.log(`  - ${difference}`);
  }
} catch (error) {
  bar.stop();
  console.error(`Could not verify: ${error instanceof Error ? error.message : String(error)}`);
  exitCode = 2;
} finally {
  await readDb.end();
  await pool.end();
  await store.close();
  await personalData.close();
  await database.stop();
}
process.exit(exitCode);
