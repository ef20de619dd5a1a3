import { parseArgs } from 'node:util';
import { EsdbEventStore, type EventStore, PostgresEventStore } from '@agency/platform';
import { PERSONAL_DATA_SCHEMA } from '@agency/platform/personal-data';
import { SingleBar } from 'cli-progress';
import pg from 'pg';
import { configFromEnvironment } from './config';
import { copyStore, verifyCopy } from './copy-store';
import { openDatabase } from './database';
import { openEventStore } from './event-store-choice';

// `npm run store:copy -- --to esdb`: every event of the PostgreSQL store (DATABASE_URL, or the
// embedded one in DATA_DIR) into the EventStoreDB/KurrentDB server at EVENTSTORE_CONNECTION_STRING,
// in $all order, then a check of the copy (per stream: count and sha256). Run it again after an
// interruption: it resumes where the target's streams end. Events move as stored: personal fields
// stay sealed, and their keys (pii.subject_keys) stay in this database, which the product keeps
// using for read models. `--to postgres://…` copies into another PostgreSQL database instead, keys
// included; `--verify` only checks. Afterwards start with EVENT_STORE=esdb and run `npm run rebuild`
// (the read models' checkpoints are positions of the old store).
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
/** A PostgreSQL target gets the data subjects' keys too: without them its personal fields read as erased. */
async function copyPersonalDataKeys(fromUrl: string, toUrl: string): Promise<number> {
  const from = new pg.Client({ connectionString: fromUrl });
  const to = new pg.Client({ connectionString: toUrl });
  try {
    await from.connect();
    await to.connect();
    if (!(await from.query("select to_regclass('pii.subject_keys') as t")).rows[0].t) return 0;
    const keys = await from.query('select * from pii.subject_keys');
    await to.query(PERSONAL_DATA_SCHEMA);
    for (const key of keys.rows) {
      // A key shredded in the source since an earlier copy is shredded in the target too.
      await to.query(
        `insert into pii.subject_keys (subject_id, key_id, key, kind, retain_until, created_at, shredded_at)
         values ($1, $2, $3, $4, $5, $6, $7)
         on conflict (subject_id) do update set key = excluded.key, retain_until = excluded.retain_until,
           shredded_at = excluded.shredded_at`,
        [key.subject_id, key.key_id, key.key, key.kind, key.retain_until, key.created_at, key.shredded_at],
      );
    }
    return keys.rowCount ?? 0;
  } finally {
    await from.end().catch(() => {});
    await to.end().catch(() => {});
  }
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
      console.log(`Copied the keys of ${await copyPersonalDataKeys(database.url, values.to)} data subjects.`);
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
