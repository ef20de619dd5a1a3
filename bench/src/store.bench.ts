import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PostgresEventStore } from '@agency/platform';
import { startEmbeddedDatabase } from '@agency/scripts/embedded-database';
import pg from 'pg';

/**
 * Appends through the event store next to raw INSERTs into a bare table of the same shape, in
 * the same run on the same database. Prints events/s and the ratio; asserts nothing.
 */
const SINGLE = Number(process.env.BENCH_EVENTS ?? 4000);
const BATCHES = Number(process.env.BENCH_BATCHES ?? 100);

const dataDir = process.env.DATABASE_URL ? undefined : mkdtempSync(join(tmpdir(), 'agency-bench-'));
const database = dataDir
  ? await startEmbeddedDatabase({ dataDir })
  : { url: process.env.DATABASE_URL as string, stop: async () => {} };
const store = await PostgresEventStore.connect(database.url, { max: 16 });
const pool = new pg.Pool({ connectionString: database.url, max: 16 });
await pool.query(`
  drop table if exists bench_raw;
  create table bench_raw (like es.events including all);
`);

const metadata = {
  userId: 'bench',
  role: 'admin',
  commandId: randomUUID(),
  correlationId: 'bench',
  causationId: 'bench',
};
const payload = {
  lessonId: randomUUID(),
  duration: 1,
  amountPence: 4500,
  note: 'benchmark event with a realistic small payload',
};

async function timed(label: string, events: number, work: () => Promise<void>) {
  const started = process.hrtime.bigint();
  await work();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const rate = events / seconds;
  console.log(`${label.padEnd(48)} ${rate.toFixed(0).padStart(8)} events/s`);
  return rate;
}

/** `writers` loops sharing `total` operations; each writer owns its streams, as commands mostly do. */
async function spread(total: number, writers: number, operation: (writer: number, n: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: writers }, async (_, writer) => {
      for (let n = next++; n < total; n = next++) await operation(writer, n);
    }),
  );
}

function storeAppends(writers: number, total: number) {
  const run = randomUUID();
  const revisions = new Map<string, number>();
  return spread(total, writers, async (writer, n) => {
    const stream = `bench-${run}-${writer}-${n % 50}`;
    const revision = revisions.get(stream);
    await store.appendToStream(stream, [{ type: 'LessonRecorded', data: payload, metadata }], {
      expectedRevision: revision === undefined ? 'no_stream' : revision,
    });
    revisions.set(stream, (revision ?? -1) + 1);
  });
}

const RAW_INSERT = `insert into bench_raw (stream_id, stream_revision, event_id, event_type, data, metadata)
  select * from unnest($1::text[], $2::bigint[], $3::uuid[], $4::text[], $5::jsonb[], $6::jsonb[])`;

function rawRows(stream: string, from: number, count: number) {
  return [
    Array(count).fill(stream),
    Array.from({ length: count }, (_, i) => from + i),
    Array.from({ length: count }, () => randomUUID()),
    Array(count).fill('LessonRecorded'),
    Array(count).fill(JSON.stringify(payload)),
    Array(count).fill(JSON.stringify(metadata)),
  ];
}

function rawInserts(writers: number, total: number) {
  const run = randomUUID();
  const revisions = new Map<string, number>();
  return spread(total, writers, async (writer, n) => {
    const stream = `raw-${run}-${writer}-${n % 50}`;
    const revision = (revisions.get(stream) ?? -1) + 1;
    revisions.set(stream, revision);
    await pool.query(RAW_INSERT, rawRows(stream, revision, 1));
  });
}

console.log(`PostgreSQL event store vs raw INSERT, ${SINGLE} single-event appends, ${BATCHES} batches of 100\n`);
// Warm both paths so the first measurement does not pay for connections and plans.
await storeAppends(8, 400);
await rawInserts(8, 400);

const results: [string, number, number][] = [];
for (const writers of [1, 8]) {
  const raw = await timed(`raw INSERT, 1 row, concurrency ${writers}`, SINGLE, () => rawInserts(writers, SINGLE));
  const es = await timed(`appendToStream, 1 event, concurrency ${writers}`, SINGLE, () =>
    storeAppends(writers, SINGLE),
  );
  results.push([`single appends, concurrency ${writers}`, es, raw]);
}
{
  const raw = await timed('raw multi-row INSERT, 100 rows', BATCHES * 100, async () => {
    for (let b = 0; b < BATCHES; b++) await pool.query(RAW_INSERT, rawRows(`raw-batch-${b}`, 0, 100));
  });
  const es = await timed('appendToStream, 100 events', BATCHES * 100, async () => {
    for (let b = 0; b < BATCHES; b++) {
      const events = Array.from({ length: 100 }, () => ({ type: 'LessonRecorded', data: payload, metadata }));
      await store.appendToStream(`bench-batch-${b}-${randomUUID()}`, events, { expectedRevision: 'no_stream' });
    }
  });
  results.push(['batch appends of 100', es, raw]);
}

console.log('\nratio = event store / raw INSERT (target ≥ 0.8 at concurrency 8)');
for (const [label, es, raw] of results) console.log(`  ${label.padEnd(32)} ${(es / raw).toFixed(2)}`);

await store.close();
await pool.end();
await database.stop();
if (dataDir) rmSync(dataDir, { recursive: true, force: true });
