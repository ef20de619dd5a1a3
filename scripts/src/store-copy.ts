import { parseArgs } from 'node:util';
import { EsdbEventStore, type EventStore, PostgresEventStore } from '@agency/platform';
import { SingleBar } from 'cli-progress';
import pg from 'pg';
import { configFromEnvironment } from './config';
import { copyCommandSide, copyStore, keepRecordedTimes, verifyCopy } from './copy-store';
import { openDatabase } from './database';
import { openEventStore } from './event-store-choice';

// `npm run store:copy -- --to esdb`: every event of the PostgreSQL store (DATABASE_URL, or the
// embedded one in DATA_DIR) into the EventStoreDB/KurrentDB server at EVENTSTORE_CONNECTION_STRING,
// in $all order, then a check of the copy (per stream: count and sha256). Run it again after an
// interruption: it resumes where the target's streams end. Events move as stored: personal fields
// stay sealed, and their keys (pii.subject_keys) stay in this database, which the product keeps
// using for read models. `--to postgres://…` copies into another PostgreSQL database instead, with
// everything else a store needs (copy-store.ts, COMMAND_SIDE_SCHEMAS): the command side's tables
// (invoice numbers, reserved usernames and prefixes, accounts, reactors' checkpoints mapped to the
// copy's positions, pending links) and the keys; the product rebuilds the read models at its first
// start there. Stop the product on the source first. `--verify` only checks. After a copy to
// EventStoreDB start with EVENT_STORE=esdb and run `npm run rebuild` (the read models' checkpoints
// are positions of the old store).
const { values } = parseArgs({ options: { to: { type: 'string' }, verify: { type: 'boolean' } } });
if (!values.to) {
  console.error('Usage: npm run store:copy -- --to esdb   (or --to postgres://… for another PostgreSQL store)');
  process.exit(2);
}
const config = configFromEnvironment({ ...process.env, EVENT_STORE: 'postgres' });
const connectionString = process.env.EVENTSTORE_CONNECTION_STRING;
if (values.to === 'esdb' && !connectionString) {
  console.error('--to esdb copies to the server named by EVENTSTORE_CONNECTION_STRING, which is not set.');
  process.exit(2);
}
const database = await openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
const source = await openEventStore({ kind: 'postgres' }, database.url);
let target: EventStore | undefined;
let differs = false;
try {
  if (values.to === 'esdb') {
    target = await openEventStore({ kind: 'esdb', connectionString: connectionString as string }, database.url);
  } else if (/^postgres(ql)?:\/\//.test(values.to)) {
    target = await PostgresEventStore.connect(values.to);
  } else {
    throw new Error(`--to must be esdb or a postgres:// URL, not ${values.to}`);
  }
  if (!values.verify) {
    const count = new pg.Client({ connectionString: database.url });
    await count.connect();
    const total = Number((await count.query('select count(*) from es.events')).rows[0].count);
    await count.end();
    const bar = new SingleBar({
      format: 'Copying events [{bar}] {percentage}% | {value}/{total} | {copied} copied, {skipped} already there',
    });
    bar.start(total, 0, { copied: 0, skipped: 0 });
    const done = await copyStore(source, target, {
      onProgress: ({ read, copied, skipped }) => bar.update(Math.min(read, total), { copied, skipped }),
    });
    bar.stop();
    console.log(`Copied ${done.copied} events (${done.skipped} were already there).`);
    if (!(target instanceof EsdbEventStore)) {
      const targetEvents = new pg.Client({ connectionString: values.to });
      await targetEvents.connect();
      const inTarget = Number((await targetEvents.query('select count(*) from es.events')).rows[0].count);
      await targetEvents.end();
      if (inTarget > done.read) {
        throw new Error(
          `The target holds ${inTarget - done.read} events the source does not: copy into an empty store`,
        );
      }
      await keepRecordedTimes(values.to);
      for (const { table, rows } of await copyCommandSide(database.url, values.to)) {
        console.log(`Copied ${table}: ${rows} row(s).`);
      }
    }
  }
  console.log('Checking the copy: every stream’s event count and sha256…');
  const check = await verifyCopy(source, target);
  if (check.mismatches.length > 0) {
    for (const { streamId, source: a, target: b } of check.mismatches.slice(0, 20)) {
      console.error(
        `  ${streamId}: source ${a ? `${a.events} events ${a.sha256.slice(0, 12)}` : 'none'}, ` +
          `target ${b ? `${b.events} events ${b.sha256.slice(0, 12)}` : 'none'}`,
      );
    }
    console.error(`${check.mismatches.length} of the streams differ: the copy is not complete (run it again).`);
    differs = true;
  } else {
    console.log(`The copy holds the same ${check.events} events in ${check.streams} streams.`);
    if (target instanceof EsdbEventStore) {
      console.log('Next: set EVENT_STORE=esdb and EVENTSTORE_CONNECTION_STRING, then npm run rebuild, then start.');
    }
  }
} finally {
  await source.close().catch(() => {});
  await target?.close().catch(() => {});
  await database.stop();
}
// Said explicitly: process.exitCode = 1 set above was seen to end this script with 0.
process.exit(differs ? 1 : 0);
