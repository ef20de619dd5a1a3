import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { eventCatalogue, personalDataRules } from '@agency/contracts';
import { client, type Decider, engagement, invoice, timesheet, tutor } from '@agency/domain';
import { PostgresEventStore } from '@agency/platform';
import { encryptPersonalFields } from '@agency/platform/personal-data';
import { SingleBar } from 'cli-progress';
import pg from 'pg';
import { configFromEnvironment } from './config';
import { openDatabase } from './database';
import { openPersonalData } from './personal-data';

// `npm run seed:scale -- [--years 10] [--tutors 60] [--families 650]`: an agency of that size and
// age, decided by the real deciders in memory (every command through `decide`, every state by
// `evolve`) and written straight into es.events in batches, in $all order. DATA_DIR defaults to
// .data-scale so the user's .data is never touched; `DATA_DIR=.data-scale npm start` serves it
// (the read models build at start, their checkpoint being behind).

type Row = { stream: string; revision: number; type: string; data: string; metadata: string; at: Date };
type DomainEvent = { type: string; data: unknown };

const BATCH = 10_000;
const ADMIN = { role: 'admin' as const, tutorId: null };
const SUBJECTS = ['Maths', 'English', 'Physics', 'Chemistry', 'Biology', 'French', 'History', 'Latin'];
const FIRST = ['Alex', 'Sam', 'Jo', 'Chris', 'Pat', 'Robin', 'Kim', 'Lee', 'Max', 'Charlie', 'Ali', 'Nico'];
const LAST = ['Smith', 'Jones', 'Brown', 'Taylor', 'Wilson', 'Evans', 'Patel', 'Khan', 'Wright', 'Green'];

/** A seeded generator (mulberry32): the same options give the same agency. */
function random(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const iso = (date: Date) => date.toISOString().slice(0, 10);
const monthKey = (year: number, month: number) => `${year}-${String(month + 1).padStart(2, '0')}`;

/** Every stream's state and revision, the rows not yet written, and the writer behind them. */
class BulkWriter {
  private readonly states = new Map<string, unknown>();
  private readonly revisions = new Map<string, number>();
  private rows: Row[] = [];
  private inFlight: Promise<void> = Promise.resolve();
  written = 0;

  constructor(
    private readonly db: pg.Pool,
    private readonly seal: (type: string, data: Record<string, unknown>) => Promise<Record<string, unknown>>,
    private readonly onWritten: (count: number) => void,
  ) {}

  state<S>(stream: string, decider: Decider<unknown, DomainEvent, S>): S {
    return (this.states.get(stream) as S | undefined) ?? decider.initialState();
  }

  /** Decides `command` on the stream's state as of now, records the events and evolves the state. */
  async run<C, E extends DomainEvent, S>(stream: string, decider: Decider<C, E, S>, command: C, now: Date) {
    const before = this.state(stream, decider as unknown as Decider<unknown, DomainEvent, S>);
    const events = decider.decide(command, before, now);
    if (events.length === 0) return before;
    const commandId = randomUUID();
    let revision = this.revisions.get(stream) ?? -1;
    for (const event of events) {
      revision += 1;
      const data = personalDataRules[event.type]
        ? await this.seal(event.type, event.data as Record<string, unknown>)
        : event.data;
      this.rows.push({
        stream,
        revision,
        type: event.type,
        data: JSON.stringify(data),
        metadata: JSON.stringify({
          userId: 'seed-scale',
          role: 'admin',
          commandId,
          correlationId: commandId,
          causationId: commandId,
          schemaVersion: eventCatalogue.get(event.type)?.version ?? 1,
        }),
        at: now,
      });
    }
    this.revisions.set(stream, revision);
    const after = events.reduce(decider.evolve, before);
    this.states.set(stream, after);
    if (this.rows.length >= BATCH) await this.flush();
    return after;
  }

  /** Writes the rows gathered so far in one statement (its own transaction: $all order holds). */
  async flush() {
    const rows = this.rows;
    this.rows = [];
    await this.inFlight;
    if (rows.length === 0) return;
    this.inFlight = this.db
      .query(
        `insert into es.events (stream_id, stream_revision, event_id, event_type, data, metadata, recorded_at)
         select s, r, gen_random_uuid(), t, d, m, a
           from unnest($1::text[], $2::bigint[], $3::text[], $4::jsonb[], $5::jsonb[], $6::timestamptz[]) as x(s, r, t, d, m, a)`,
        [
          rows.map((row) => row.stream),
          rows.map((row) => row.revision),
          rows.map((row) => row.type),
          rows.map((row) => row.data),
          rows.map((row) => row.metadata),
          rows.map((row) => row.at.toISOString()),
        ],
      )
      .then(() => {
        this.written += rows.length;
        this.onWritten(this.written);
      });
  }

  async close() {
    await this.flush();
    await this.inFlight;
  }
}

type Engaged = { summary: engagement.EngagementSummary; weekday: number; ratePence: number };

export type ScaleOptions = { years: number; tutors: number; families: number; seed?: number };

/** The agency, month by month, through the deciders; answers the number of events written. */
export async function seedScale(
  db: pg.Pool,
  seal: (type: string, data: Record<string, unknown>) => Promise<Record<string, unknown>>,
  options: ScaleOptions,
  progress: (written: number) => void = () => {},
): Promise<number> {
  const rnd = random(options.seed ?? 17);
  const pick = <T>(list: readonly T[]) => list[Math.floor(rnd() * list.length)] as T;
  const writer = new BulkWriter(db, seal, progress);
  const today = new Date();
  const first = new Date(Date.UTC(today.getUTCFullYear() - options.years, today.getUTCMonth(), 1));
  const contact = (id: string, n: number) => ({
    id,
    firstName: pick(FIRST),
    lastName: `${pick(LAST)}${n}`,
    address: [`${1 + (n % 200)} High Street`, '', 'Oxford', ''],
    postcode: 'OX1 1AA',
    email: `person${n}@example.com`,
    phone: [{ type: 'Mobile', number: `07700 9${String(n % 100000).padStart(5, '0')}` }],
    dob: null,
  });

  const tutorIds: string[] = [];
  const prefixes = new Map<string, string>();
  for (let t = 0; t < options.tutors; t++) {
    const tutorId = randomUUID();
    const invoicePrefix = `T${String(t).padStart(3, '0')}`;
    tutorIds.push(tutorId);
    prefixes.set(tutorId, invoicePrefix);
    await writer.run(
      tutor.tutorStream(tutorId),
      tutor.tutorDecider,
      {
        type: 'RegisterTutor',
        tutorId,
        startDate: iso(first),
        username: `tutor${t}`,
        invoicePrefix,
        contact: contact(randomUUID(), t),
      },
      first,
    );
  }

  // Families join over the first two years; each child takes one to three subjects, each an
  // engagement with a tutor, and about one engagement in eight moves to another tutor later.
  const joining: { at: Date; clientId: string; children: string[] }[] = [];
  for (let f = 0; f < options.families; f++) {
    const at = new Date(first.getTime() + Math.floor(rnd() * Math.min(730, options.years * 180)) * 86_400_000);
    joining.push({ at, clientId: randomUUID(), children: rnd() < 0.5 ? [randomUUID()] : [randomUUID(), randomUUID()] });
  }
  joining.sort((a, b) => a.at.getTime() - b.at.getTime());

  const engaged = new Map<string, Engaged>();
  const numbers = new Map<string, number>();
  const startEngagement = async (tutorId: string, studentId: string, startDate: string, at: Date) => {
    const engagementId = randomUUID();
    const ratePence = 3000 + Math.floor(rnd() * 5) * 500;
    const roster = writer.state(tutor.tutorStream(tutorId), tutor.tutorDecider as never) as tutor.TutorState;
    if (roster.status !== 'none' && Object.values(roster.engagements).includes(studentId)) return;
    await writer.run(
      tutor.tutorStream(tutorId),
      tutor.tutorDecider,
      {
        type: 'StartTutorEngagement',
        engagementId,
        studentId,
      },
      at,
    );
    const state = await writer.run(
      engagement.engagementStream(engagementId),
      engagement.engagementDecider,
      {
        type: 'StartEngagement',
        engagementId,
        tutorId,
        studentId,
        startDate,
        subjects: [pick(SUBJECTS)],
        otherOngoingWithSameStudent: false,
        ratePence,
        commissionBp: 2500,
        partnerBp: rnd() < 0.3 ? 1000 : 0,
      },
      at,
    );
    engaged.set(engagementId, { summary: engagement.summaryOf(state)!, weekday: 1 + Math.floor(rnd() * 5), ratePence });
  };

  let joined = 0;
  for (
    let cursor = new Date(first);
    cursor <= today;
    cursor = new Date(Date.UTC(cursor.getUTCFullYear(), cursor.getUTCMonth() + 1, 1))
  ) {
    const year = cursor.getUTCFullYear();
    const m = cursor.getUTCMonth();
    const month = monthKey(year, m);
    const monthEnd = new Date(Date.UTC(year, m + 1, 0));
    // Families who join this month, their children and engagements.
    while (joined < joining.length && (joining[joined] as (typeof joining)[number]).at <= monthEnd) {
      const family = joining[joined] as (typeof joining)[number];
      joined += 1;
      const startDate = iso(family.at);
      await writer.run(
        client.clientStream(family.clientId),
        client.clientDecider,
        {
          type: 'RegisterClient',
          clientId: family.clientId,
          startDate,
          contact: contact(randomUUID(), joined),
        },
        family.at,
      );
      for (const childId of family.children) {
        await writer.run(
          client.clientStream(family.clientId),
          client.clientDecider,
          {
            type: 'AddChild',
            child: {
              id: childId,
              firstName: pick(FIRST),
              lastName: pick(LAST),
              dob: `${year - 8 - Math.floor(rnd() * 8)}-05-01`,
            },
          },
          family.at,
        );
        const subjects = 1 + Math.floor(rnd() * 3);
        for (let s = 0; s < subjects; s++) await startEngagement(pick(tutorIds), childId, startDate, family.at);
      }
    }
    // September: rates go up; now and then an engagement ends and the student moves tutor.
    for (const [engagementId, running] of engaged) {
      if (m === 8) {
        const ratePence = Math.min(running.ratePence + 200, 1_000_000);
        const from = `${year}-09-01`;
        if (from <= running.summary.startDate) continue;
        const state = await writer.run(
          engagement.engagementStream(engagementId),
          engagement.engagementDecider,
          {
            type: 'ChangeRates',
            from,
            ratePence,
            commissionBp: 2500,
            partnerBp: running.summary.periods.at(-1)?.partnerBp ?? 0,
          },
          cursor,
        );
        running.summary = engagement.summaryOf(state)!;
        running.ratePence = ratePence;
      }
      if (m === 7 && rnd() < 0.12) {
        const endDate = `${year}-08-31`;
        if (endDate <= running.summary.startDate) continue;
        await writer.run(
          engagement.engagementStream(engagementId),
          engagement.engagementDecider,
          {
            type: 'TerminateEngagement',
            endDate,
          },
          cursor,
        );
        await writer.run(
          tutor.tutorStream(running.summary.tutorId),
          tutor.tutorDecider,
          {
            type: 'EndTutorEngagement',
            engagementId,
          },
          cursor,
        );
        engaged.delete(engagementId);
        await startEngagement(pick(tutorIds), running.summary.studentId, `${year}-09-01`, cursor);
      }
    }
    // Weekly lessons on each engagement's day, a few edited the day after.
    const lessonsOfTutor = new Set<string>();
    for (let day = 1; day <= monthEnd.getUTCDate(); day++) {
      const date = new Date(Date.UTC(year, m, day));
      if (date > today) break;
      const dateText = iso(date);
      const weekday = date.getUTCDay();
      for (const running of engaged.values()) {
        if (running.weekday !== weekday || dateText < running.summary.startDate) continue;
        const { tutorId } = running.summary;
        const cell = { tutorId, month, engagement: running.summary, date: dateText, actor: ADMIN };
        const stream = timesheet.timesheetStream(tutorId, month);
        const at = new Date(date.getTime() + 18 * 3_600_000);
        await writer.run(stream, timesheet.timesheetDecider, { type: 'SaveLessonCell', ...cell, duration: 100 }, at);
        lessonsOfTutor.add(tutorId);
        if (rnd() < 0.06) {
          const lessonId = timesheet.cellLessonId(cell);
          await writer.run(
            stream,
            timesheet.timesheetDecider,
            { type: 'SaveLessonCell', ...cell, lessonId, duration: 150 },
            new Date(at.getTime() + 86_400_000),
          );
        }
      }
    }
    // Every past month is invoiced on the 1st of the next, confirmed, and mostly paid.
    const invoiceDay = new Date(Date.UTC(year, m + 1, 1, 9));
    if (invoiceDay > today) continue;
    for (const tutorId of lessonsOfTutor) {
      const invoiceId = `${tutorId}_${month}`;
      const sheet = await writer.run(
        timesheet.timesheetStream(tutorId, month),
        timesheet.timesheetDecider,
        {
          type: 'LockMonth',
          tutorId,
          month,
          invoiceId,
        },
        invoiceDay,
      );
      const number = (numbers.get(tutorId) ?? 0) + 1;
      numbers.set(tutorId, number);
      const stream = invoice.invoiceStream(tutorId, month);
      const generated = await writer.run(
        stream,
        invoice.invoiceDecider,
        {
          type: 'GenerateInvoice',
          invoiceId,
          tutorId,
          month,
          invoicePrefix: prefixes.get(tutorId) as string,
          number,
          date: iso(invoiceDay),
          lessons: timesheet.lessonsOf(sheet),
          actor: ADMIN,
        },
        invoiceDay,
      );
      const confirmedAt = new Date(invoiceDay.getTime() + 2 * 86_400_000);
      if (confirmedAt > today) continue;
      await writer.run(stream, invoice.invoiceDecider, { type: 'ConfirmInvoice', actor: ADMIN }, confirmedAt);
      const paidAt = new Date(invoiceDay.getTime() + 14 * 86_400_000);
      if (paidAt > today || rnd() < 0.05 || generated.status === 'none') continue;
      await writer.run(
        stream,
        invoice.invoiceDecider,
        {
          type: 'RecordPayment',
          paymentId: randomUUID(),
          date: iso(paidAt),
          amountPence: generated.invoice.commissionPence,
          actor: ADMIN,
        },
        paidAt,
      );
    }
  }
  await writer.close();
  // The command side's own tables: names taken, and each tutor's last invoice number.
  await db.query(`create schema if not exists command`);
  for (const [t, tutorId] of tutorIds.entries()) {
    await db
      .query(`insert into command.usernames (name, tutor_id) values ($1, $2) on conflict do nothing`, [
        `tutor${t}`,
        tutorId,
      ])
      .catch(() => {});
    await db
      .query(
        `insert into command.tutor_names (kind, name, tutor_id) values ('prefix', $1, $2) on conflict do nothing`,
        [prefixes.get(tutorId), tutorId],
      )
      .catch(() => {});
  }
  await db.query(`create schema if not exists invoice;
    create table if not exists invoice.reference_counters (tutor_id text primary key, last_number int not null check (last_number > 0))`);
  await db.query(
    `insert into invoice.reference_counters (tutor_id, last_number) select * from unnest($1::text[], $2::int[])
     on conflict (tutor_id) do update set last_number = excluded.last_number`,
    [[...numbers.keys()], [...numbers.values()]],
  );
  return writer.written;
}

async function main() {
  const { values } = parseArgs({
    options: {
      years: { type: 'string', default: '10' },
      tutors: { type: 'string', default: '60' },
      families: { type: 'string', default: '650' },
    },
  });
  process.env.DATA_DIR ||= '.data-scale';
  const config = configFromEnvironment();
  const database = await openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
  const personalData = await openPersonalData(config.dataDir, database.url);
  const store = await PostgresEventStore.connect(database.url);
  const db = new pg.Pool({ connectionString: database.url, max: 2 });
  try {
    const existing = Number((await db.query('select count(*) from es.events')).rows[0].count);
    if (existing > 0) {
      console.log(`${config.dataDir} already holds ${existing} events: nothing added.`);
      return;
    }
    const options = { years: Number(values.years), tutors: Number(values.tutors), families: Number(values.families) };
    const started = performance.now();
    const bar = new SingleBar({ format: 'Seeding [{bar}] {value} events | {duration}s' });
    bar.start(1_000_000, 0);
    const written = await seedScale(
      db,
      (type, data) => encryptPersonalFields(personalData.vault, type, data),
      options,
      (count) => {
        if (count > bar.getTotal()) bar.setTotal(count);
        bar.update(count);
      },
    );
    bar.stop();
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `Seeded ${written} events (${options.years} years, ${options.tutors} tutors, ${options.families} families) in ${seconds.toFixed(1)} s into ${config.dataDir}.`,
    );
    console.log(`Start it with DATA_DIR=${config.dataDir} npm start (the read models build at start).`);
  } finally {
    await store.close();
    await db.end();
    await personalData.close();
    await database.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
