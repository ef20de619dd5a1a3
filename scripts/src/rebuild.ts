import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { EventStore, Position } from '@agency/platform';
import { eventsOfTypesUpTo } from '@agency/platform/event-store/postgres/rebuild-read';
// The parts a rebuild needs, not the service's index (its HTTP app and every route: 0.4 s and 20 MB more at start).
import { describeFailure } from '@agency/projection-service/projection-runner';
import { projections } from '@agency/projection-service/read-models/index';
import { rebuildProjection, rebuildReadModels } from '@agency/projection-service/read-models/read-schema';
import { SingleBar } from 'cli-progress';
import pg from 'pg';
import { configFromEnvironment } from './config';
import { openDatabase } from './database';
import { openEventStore } from './event-store-choice';
import { openPersonalData } from './personal-data';

// `npm run rebuild`: every read model, built into a fresh schema and swapped in.
// `npm run rebuild -- --projection NAME`: one projection's tables, from position 0, beside the
// live ones; its failure is cleared (or recorded again, if it still cannot apply an event).
// Works beside a running `npm start` (it joins its database) or on its own.
const { values } = parseArgs({ options: { projection: { type: 'string' } } });
const names = projections.map((p) => p.name);
if (values.projection !== undefined && !names.includes(values.projection)) {
  console.error(`There is no projection named "${values.projection}". Projections: ${names.join(', ')}.`);
  process.exit(2);
}
const config = configFromEnvironment();
const database = await openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
// From EVENT_STORE's store (PostgreSQL by default, or EventStoreDB with EVENT_STORE=esdb); a
// PostgreSQL store's positions are checked first: from another cluster they would build read
// models that new events never reach.
// Read through the personal-data layer, as the live runner reads: an erased subject reads as "Erased".
const personalData = await openPersonalData(config.dataDir, database.url);
const store = personalData.protect(await openEventStore(config.eventStore, database.url));
const pool = new pg.Pool({ connectionString: database.url });
pool.on('error', () => {});
// The PostgreSQL store lives in this database: the load reads its table (only the event types a
// projection reads in Node; the lessons are applied by the database), through the same layer.
const storeTable =
  config.eventStore?.kind === 'esdb'
    ? undefined
    : {
        only: (types: string[], upTo: Position) => personalData.protect(eventsOfTypesUpTo(pool, types, upTo)),
        notLoaded: (projection: string, why: string) =>
          console.log(`${projection}: not loaded by the database (${why}); its events are applied one by one instead`),
      };

/**
 * A load's garbage (the decoded events of each batch, alive while every projection applies it)
 * outlives the young generation's collections, and V8 lets the old generation grow to about
 * 200 MB of it before it collects: over the 400 MB a rebuild may take with the rest. Collected
 * between batches instead once the heap holds more than this (a collection costs a few ms).
 */
const HEAP_BOUND_BYTES = 160 * 1024 * 1024;
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
function collectGarbageAbove(bytes: number) {
  if (process.memoryUsage().heapUsed > bytes) gc();
}

/** The events in `$all`, for the progress bar (counted by reading it, whichever the store). */
async function countEvents(events: EventStore): Promise<number> {
  let count = 0;
  let from: Position | undefined;
  for (;;) {
    const page = await events.readAll({ from, limit: 1000 });
    if (page.length === 0) return count;
    count += page.length;
    from = page.at(-1)?.position;
  }
}

try {
  // Counted beside the rebuild, not before it (a pass over the store): the bar starts once it is known.
  const counting =
    config.eventStore?.kind === 'esdb'
      ? countEvents(store)
      : pool.query('select count(*) from es.events').then((result) => Number(result.rows[0].count));
  const what = values.projection ? `the ${values.projection} projection` : 'read models';
  const bar = new SingleBar({
    format: `Rebuilding ${what} [{bar}] {percentage}% | {value}/{total} events | {eta}s left`,
  });
  let applied = 0;
  let total: number | undefined;
  const counted = counting.then((events) => {
    total = events;
    bar.start(events, Math.min(applied, events));
    return events;
  });
  const progress = (n: number) => {
    applied = n;
    if (total !== undefined) bar.update(Math.min(n, total));
    collectGarbageAbove(HEAP_BOUND_BYTES);
  };
  const [{ failures }, events] = await Promise.all([
    values.projection
      ? rebuildProjection(pool, store, projections, values.projection, progress, { storeTable })
      : rebuildReadModels(pool, store, projections, progress, { storeTable }),
    counted,
  ]);
  bar.update(events);
  bar.stop();
  console.log(
    values.projection
      ? `Rebuilt the ${values.projection} projection from ${events} events and swapped its tables in.`
      : `Rebuilt every read model from ${events} events and swapped it in.`,
  );
  for (const failure of failures) console.error(describeFailure(failure));
  if (failures.length > 0) {
    console.error('A projection stopped at an event it cannot apply (see above): upgrade, then rebuild it again.');
    process.exitCode = 1;
  }
} finally {
  await store.close();
  await personalData.close();
  await pool.end();
  await database.stop();
}
