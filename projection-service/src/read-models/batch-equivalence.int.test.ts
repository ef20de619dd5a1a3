import { randomUUID } from 'node:crypto';
import { type LessonDetails, seedAgencyDetails } from '@agency/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountingExportProjection } from './accounting-export/projection';
import { engagementsProjection } from './engagements/projection';
import { invoicesProjection } from './invoices/projection';
import { lessonsProjection } from './lessons/projection';
import { migrations } from './migrations';
import type { Projection } from './projection';
import { lesson } from './testing/lesson-details';
import { type GivenEvent, projectionTestBed } from './testing/projection-test-bed';

const batched = [lessonsProjection, engagementsProjection, invoicesProjection, accountingExportProjection];

/** The same projection without `applyBatch`: the runner then applies every event by its handler. */
const eventByEvent = (projection: Projection): Projection => ({ ...projection, applyBatch: undefined });

/** The same projection applying each batch in runs of `size` events: what one run left in its tables, the next reads. */
const inRunsOf = (size: number, projection: Projection): Projection => ({
  ...projection,
  applyBatch: async (sql, events) => {
    for (let i = 0; i < events.length; i += size) await projection.applyBatch?.(sql, events.slice(i, i + size));
  },
});

function engagementEvents(): GivenEvent[] {
  const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
  const terms = { ratePence: 3000, commissionBp: 2500, partnerBp: 1000 };
  const start = (engagementId: string, studentId: string): GivenEvent => ({
    streamId: `engagement-${engagementId}`,
    type: 'EngagementStarted',
    data: { engagementId, tutorId: 't-1', studentId, startDate: '2025-01-01', ...terms, subjects: ['Maths'] },
  });
  // Interleaved: each engagement's events in its own order, the engagements mixed together.
  return [
    start(a, 's-1'),
    start(b, 's-2'),
    {
      streamId: `engagement-${a}`,
      type: 'EngagementRatesChanged',
      data: { engagementId: a, from: '2025-09-01', ratePence: 3500, commissionBp: 2000, partnerBp: 1000 },
    },
    start(c, 's-3'),
    {
      streamId: `engagement-${b}`,
      type: 'EngagementSubjectsChanged',
      data: { engagementId: b, from: '2025-03-01', subjects: ['Latin'] },
    },
    {
      streamId: `engagement-${a}`,
      type: 'EngagementPeriodCorrected',
      data: {
        engagementId: a,
        periodStart: '2025-09-01',
        startDate: '2025-10-01',
        ...terms,
        ratePence: 3600,
        subjects: ['Maths'],
      },
    },
    { streamId: `engagement-${b}`, type: 'EngagementEnded', data: { engagementId: b, endDate: '2025-06-30' } },
    {
      streamId: `engagement-${a}`,
      type: 'EngagementRatesChanged',
      data: { engagementId: a, from: '2026-01-01', ratePence: 4000, commissionBp: 2000, partnerBp: 500 },
    },
    { streamId: `engagement-${c}`, type: 'EngagementEnded', data: { engagementId: c, endDate: '2025-12-31' } },
  ];
}

function invoiceEvents(): GivenEvent[] {
  const tutorId = randomUUID();
  const key = (month: string) => ({ invoiceId: `${tutorId}_${month}`, tutorId, month });
  const streamId = (month: string) => `invoice-${tutorId}-${month}`;
  const generated = (
    month: string,
    reference: string,
    earningsPence: number,
    items = [{ commissionBp: 2500, earningsPence, commissionPence: earningsPence / 4 }],
  ): GivenEvent => ({
    streamId: streamId(month),
    type: 'InvoiceGenerated',
    data: {
      ...key(month),
      reference,
      date: `${month}-28`,
      items,
      lessonCount: 2,
      earningsPence,
      commissionPence: earningsPence / 4,
      partnerCommissionPence: earningsPence / 40,
    },
  });
  const paid = (month: string, amountPence: number): GivenEvent => ({
    streamId: streamId(month),
    type: 'InvoicePaymentRecorded',
    data: { ...key(month), paymentId: randomUUID(), date: `${month}-28`, amountPence },
  });
  return [
    generated('2026-01', 'GH-1', 8000),
    { streamId: streamId('2026-01'), type: 'InvoiceConfirmed', data: key('2026-01') },
    generated('2026-02', 'GH-2', 6000),
    paid('2026-01', 3000),
    paid('2026-01', 2000),
    // February is withdrawn after a payment, generated again under the same id, confirmed and paid.
    paid('2026-02', 100),
    { streamId: streamId('2026-02'), type: 'InvoiceWithdrawn', data: { ...key('2026-02'), reference: 'GH-2' } },
    generated('2026-02', 'GH-3', 7000),
    { streamId: streamId('2026-02'), type: 'InvoiceConfirmed', data: key('2026-02') },
    paid('2026-02', 7000),
    paid('2026-01', 3000),
    // Withdrawn and generated again in one run of events, with nothing between.
    generated('2026-03', 'GH-4', 1000),
    { streamId: streamId('2026-03'), type: 'InvoiceWithdrawn', data: { ...key('2026-03'), reference: 'GH-4' } },
    generated('2026-03', 'GH-5', 1200),
    // An invoice of two lines made final by its first payment and paid again: each payment reads
    // the sale rows the same batch (or run) recorded.
    generated('2026-04', 'GH-6', 4000, [
      { commissionBp: 2500, earningsPence: 2000, commissionPence: 500 },
      { commissionBp: 2000, earningsPence: 2000, commissionPence: 400 },
    ]),
    paid('2026-04', 100),
    paid('2026-04', 250),
  ];
}

/** A family's invoice paid, credited and paid again after the family is erased; the agency's terms changed. */
function familyEvents(): GivenEvent[] {
  const [clientId, invoiceId] = [randomUUID(), randomUUID()];
  const streamId = `family-invoice-${invoiceId}`;
  const lines = [
    { description: 'Easter workshop: Sam', amountPence: 4_500 },
    { description: 'Maths lessons', amountPence: 6_000, vatPence: 1_200 },
  ];
  const payment = (paymentId: string, amountPence: number): GivenEvent => ({
    streamId,
    type: 'FamilyInvoicePaymentRecorded',
    data: { invoiceId, paymentId, date: '2026-03-25', amountPence },
  });
  return [
    { streamId: 'agency-details', type: 'AgencyDetailsSet', data: { details: seedAgencyDetails } },
    {
      streamId,
      type: 'FamilyInvoiceIssued',
      data: {
        invoiceId,
        reference: 'OTA00007',
        date: '2026-03-20',
        dueDate: '2026-04-03',
        clientId,
        billedFor: { kind: 'workshops', id: 'w-1' },
        billing: { name: 'Jo Lee', address: ['1 High Street'], postcode: 'OX1 1AA', email: 'jo@example.com' },
        lines,
        discountPence: 450,
        totalPence: 11_250,
      },
    },
    payment(randomUUID(), 1_000),
    {
      streamId,
      type: 'FamilyCreditNoteIssued',
      data: {
        invoiceId,
        creditNoteId: randomUUID(),
        reference: 'OTA00008',
        date: '2026-03-28',
        reason: 'cancelled',
        lines,
        totalPence: 11_250,
      },
    },
    {
      streamId: `client-${clientId}`,
      type: 'ClientErased',
      data: { clientId, reason: 'Asked', erasedAt: '2026-05-01T09:00:00.000Z' },
    },
    payment(randomUUID(), 2_000),
    {
      streamId: 'agency-details',
      type: 'AgencyDetailsSet',
      data: { details: { ...seedAgencyDetails, paymentTermsDays: 30 } },
    },
  ];
}

const repriced = (tutorId: string, lessons: LessonDetails[]): GivenEvent => ({
  streamId: `timesheet-${tutorId}-2026-03`,
  type: 'LessonsRepriced',
  data: { tutorId, month: '2026-03', engagementId: 'e-1', from: '2026-03-01', lessons },
});

function lessonEvents(): GivenEvent[] {
  const tutorId = randomUUID();
  const month = '2026-03';
  const streamId = `timesheet-${tutorId}-${month}`;
  const [kept, gone, back] = [lesson(), lesson({ date: '2026-03-03' }), lesson({ date: '2026-03-04' })];
  const invoiceId = `${tutorId}_${month}`;
  return [
    { streamId, type: 'LessonRecorded', data: { tutorId, month, lesson: kept } },
    { streamId, type: 'LessonRecorded', data: { tutorId, month, lesson: gone } },
    { streamId, type: 'LessonRecorded', data: { tutorId, month, lesson: back } },
    {
      streamId,
      type: 'LessonChanged',
      data: { tutorId, month, lesson: { ...kept, amountPence: 5000, amountEdited: true } },
    },
    // A change of rates reprices two lessons in one event (the typed amount kept), one of them removed next.
    repriced(tutorId, [
      { ...kept, amountPence: 5000, amountEdited: true, commissionPence: 1250, partnerCommissionPence: 125 },
      { ...gone, ratePence: 3200, amountPence: 4800, commissionPence: 1200, partnerCommissionPence: 120 },
    ]),
    { streamId, type: 'LessonRemoved', data: { tutorId, month, lessonId: gone.lessonId } },
    { streamId, type: 'LessonRemoved', data: { tutorId, month, lessonId: back.lessonId } },
    { streamId, type: 'LessonRecorded', data: { tutorId, month, lesson: { ...back, duration: 100 } } },
    repriced(tutorId, [{ ...back, duration: 100, ratePence: 3200, amountPence: 3200, commissionPence: 800 }]),
    { streamId, type: 'TimesheetMonthLocked', data: { tutorId, month, invoiceId } },
    // A lock on a locked month keeps its invoice; an unlock by another invoice frees nothing.
    { streamId, type: 'TimesheetMonthLocked', data: { tutorId, month, invoiceId: `${invoiceId}-other` } },
    { streamId, type: 'TimesheetMonthUnlocked', data: { tutorId, month, invoiceId: `${invoiceId}-other` } },
    { streamId, type: 'TimesheetMonthUnlocked', data: { tutorId, month, invoiceId } },
    { streamId, type: 'TimesheetMonthLocked', data: { tutorId, month, invoiceId: `${invoiceId}-again` } },
    // Another month locked and unlocked in the same run (no row left), a third left locked.
    { streamId, type: 'TimesheetMonthLocked', data: { tutorId, month: '2026-04', invoiceId: `${tutorId}_2026-04` } },
    { streamId, type: 'TimesheetMonthUnlocked', data: { tutorId, month: '2026-04', invoiceId: `${tutorId}_2026-04` } },
    { streamId, type: 'TimesheetMonthLocked', data: { tutorId, month: '2026-05', invoiceId: `${tutorId}_2026-05` } },
    // Values at the edges, sent to PostgreSQL as one JSON document per batch and as parameters one
    // by one: quotes, backslashes, escapes, emoji and other scripts in the ids; pence beyond 2^31
    // and up to 2^53 either way; the first and last days a date column holds.
    ...extremeLessons(tutorId, streamId),
  ];
}

/** An id no form would type: control characters, a line separator, a quote, a backslash, emoji. */
const ODD_ENGAGEMENT = 'e-\u00e9\u2028\t\n\r\b\f\u001f"\\😀𝄞';

function extremeLessons(tutorId: string, streamId: string): GivenEvent[] {
  const month = '2026-03';
  const odd = lesson({
    lessonId: `l-"quoted"\\back\\slash\\u0000-'${randomUUID()}`,
    engagementId: ODD_ENGAGEMENT,
    studentId: `s-${'ж'.repeat(5000)}🧑‍🎓`,
    date: '0001-01-01',
    duration: 2 ** 31,
    ratePence: Number.MAX_SAFE_INTEGER,
    amountPence: -Number.MAX_SAFE_INTEGER,
    amountEdited: true,
    commissionBp: 2 ** 31 - 1,
    commissionPence: 2 ** 31,
    partnerBp: -(2 ** 31),
    partnerCommissionPence: -(2 ** 31) - 1,
  });
  const late = lesson({ date: '9999-12-31', amountPence: 0, commissionPence: -0, partnerCommissionPence: 2 ** 53 - 2 });
  return [
    { streamId, type: 'LessonRecorded', data: { tutorId, month, lesson: odd } },
    { streamId, type: 'LessonRecorded', data: { tutorId, month, lesson: late } },
    repriced(tutorId, [{ ...odd, ratePence: 2 ** 31 - 1, amountPence: -(2 ** 31) }, late]),
  ];
}

/** Set-based batches (rebuilds, catch-up) write exactly the rows event by event writes. */
describe('applyBatch', () => {
  let bed: Awaited<ReturnType<typeof projectionTestBed>>;
  beforeAll(async () => {
    bed = await projectionTestBed(batched);
  });
  afterAll(() => bed.close());

  it('gives every batched projection the same rows as applying its events one by one', async () => {
    await bed.given(...engagementEvents(), ...familyEvents(), ...invoiceEvents(), ...lessonEvents());
    // Each batch handler is seen to succeed: one that threw would be replaced, silently, by event by event.
    const succeeded: string[] = [];
    const watched = batched.map((projection) => ({
      ...projection,
      applyBatch: async (...args: Parameters<NonNullable<Projection['applyBatch']>>) => {
        await projection.applyBatch?.(...args);
        succeeded.push(projection.name);
      },
    }));
    await bed.rebuild(watched);
    const byBatch = await bed.snapshot();
    expect(new Set(succeeded)).toEqual(new Set(batched.map((projection) => projection.name)));
    await bed.rebuild(batched.map(eventByEvent));
    const oneByOne = await bed.snapshot();
    expect(byBatch).toEqual(oneByOne);
    // Batches that end anywhere: each run starts from the rows the runs before it wrote.
    for (const size of [2, 3]) {
      await bed.rebuild(batched.map((projection) => inRunsOf(size, projection)));
      expect(await bed.snapshot()).toEqual(oneByOne);
    }
    // Not vacuous: every table of these projections holds rows.
    const tables = [
      'lessons',
      'locked_months',
      'locked_month_versions',
      'engagements',
      'engagement_periods',
      'tutor_students',
    ];
    for (const table of [...tables, 'invoices', 'invoice_payments', 'accounting_rows', 'accounting_terms'])
      expect(oneByOne[table]?.length, table).toBeGreaterThan(0);
    expect(oneByOne.invoices).toHaveLength(6);
    // The lessons at the edges are there, as typed.
    const odd = (oneByOne.lessons ?? [])
      .map((row) => JSON.parse(row))
      .filter((row) => row.engagement_id === ODD_ENGAGEMENT);
    expect(odd.map((row) => [row.date, row.rate_pence, row.amount_pence, row.student_id.length])).toEqual([
      ['0001-01-01', 2 ** 31 - 1, -(2 ** 31), 5007],
    ]);
  });

  it('swaps in a rebuild with planner statistics on every table (never analyzed would read -1 rows)', async () => {
    await bed.rebuild(batched);
    const never = await bed.rows(
      `select c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'read' and c.relkind = 'r' and c.reltuples < 0`,
    );
    expect(never).toEqual([]);
  });

  it('swaps in a rebuild with every index its migrations make (the secondary ones are dropped for the load, then made again)', async () => {
    await bed.rebuild(batched);
    await bed.rows(
      `drop schema if exists from_migrations cascade; create schema from_migrations; set search_path to from_migrations;
       ${migrations.map((migration) => migration.sql).join(';\n')};
       set search_path to read`,
    );
    const indexes = (schema: string) =>
      bed.rows(
        `select tablename, indexname, regexp_replace(indexdef, ' ON [^ ]+\\.', ' ON ') as definition
           from pg_indexes where schemaname = $1 order by tablename, indexname`,
        [schema],
      );
    const expected = await indexes('from_migrations');
    expect(expected.some((index) => index.indexname === 'lessons_month_date')).toBe(true);
    expect(await indexes('read')).toEqual(expected);
  });
});
