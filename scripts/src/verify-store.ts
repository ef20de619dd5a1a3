import { isDeepStrictEqual } from 'node:util';
import { eventCatalogue, personalDataRules } from '@agency/contracts';
import {
  agency,
  client,
  consultation,
  type Decider,
  engagement,
  familyAccess,
  familyInvoice,
  formatPounds,
  invoice,
  lessonBilling,
  moneyModel,
  payRun,
  payStatement,
  reminder,
  timesheet,
  tutor,
  user,
  workshop,
} from '@agency/domain';
import { comparePositions, type EventStore, type Position, type RecordedEvent } from '@agency/platform';
import { projections } from '@agency/projection-service';
import { traceInvoice } from '@agency/projection-service/audit/invoice-trace';
import { compareWithRebuild } from '@agency/projection-service/read-models/read-schema';
import type pg from 'pg';
import { checkDocuments, type DocumentsChecked } from './verify-documents';

// biome-ignore lint/suspicious/noExplicitAny: each stream folds its own command, event and state types.
type AnyDecider = Decider<any, any, any>;

/**
 * Each stream's decider, by the stream id's prefix (`engagement-…`) or the whole id of a stream of
 * its own kind: the same folds the commands use. The longest prefix that fits wins, so a kind whose
 * prefix starts with another's (`invoice-numbers-`, `invoice-`) is folded by its own decider.
 */
export const DECIDERS: readonly [prefix: string, decider: AnyDecider][] = [
  ['client-', client.clientDecider],
  ['tutor-', tutor.tutorDecider],
  ['engagement-', engagement.engagementDecider],
  ['timesheet-', timesheet.timesheetDecider],
  ['invoice-', invoice.invoiceDecider],
  ['invoice-numbers-', invoice.invoiceNumbersDecider],
  ['user-', user.userDecider],
  [familyInvoice.sequenceStream(), familyInvoice.sequenceDecider],
  ['family-invoice-', familyInvoice.familyInvoiceDecider],
  [workshop.workshopStream(''), workshop.workshopDecider],
  [workshop.accountStream(''), workshop.accountDecider],
  [consultation.consultationStream(''), consultation.consultationDecider],
  [agency.agencyStream(), agency.agencyDecider],
  [familyAccess.familyAccessStream(''), familyAccess.familyAccessDecider],
  [familyAccess.erasureRequestStream(''), familyAccess.erasureRequestDecider],
  [familyAccess.emailChangeStream(''), familyAccess.emailChangeDecider],
  [reminder.scheduleStream(), reminder.scheduleDecider],
  [reminder.remindersStream(''), reminder.remindersDecider],
  [moneyModel.agencyModelStream(), moneyModel.agencyModelDecider],
  [moneyModel.engagementModelStream(''), moneyModel.engagementModelDecider],
  [payRun.bankDetailsStream(''), payRun.bankDetailsDecider],
  [payRun.payRunStream(''), payRun.payRunDecider],
  ['pay-statement-', payStatement.payStatementDecider],
  [payStatement.preparedStream(), payStatement.preparedDecider],
  [lessonBilling.lessonBillingStream(), lessonBilling.lessonBillingDecider],
  [lessonBilling.lessonCreditStream(''), lessonBilling.lessonCreditDecider],
];

const BY_LENGTH = [...DECIDERS].sort(([a], [b]) => b.length - a.length);

/** The decider that folds this stream, or undefined for a stream of a kind verify does not know. */
export const deciderFor = (streamId: string): AnyDecider | undefined =>
  BY_LENGTH.find(([prefix]) => streamId.startsWith(prefix))?.[1];

export type VerifyProgress = {
  phase: 'events' | 'invoices' | 'documents' | 'read models';
  done: number;
  total: number;
};

export type VerifyReport = {
  events: number;
  streams: number;
  invoices: number;
  familyInvoices: number;
  /** Issued documents re-rendered and compared with their record (docs/documents.md). */
  documents: DocumentsChecked;
  /** Every difference found, in words; empty when everything agrees. */
  differences: string[];
};

async function readEverything(store: EventStore, after?: Position): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = [];
  let from = after;
  for (;;) {
    const page = await store.readAll({ from, limit: 1000 });
    if (page.length === 0) return events;
    events.push(...page);
    from = page.at(-1)?.position;
  }
}

/** The value at `path` of a payload, or undefined. */
function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let node = data;
  for (const step of path) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<PropertyKey, unknown>)[step];
  }
  return node;
}

/**
 * Whether every way a payload fails its schema is a personal field of an erased subject reading
 * as its erased value (an erased child's `dob` is null, which no schema of a child allows): an
 * erasure shapes a field like its kind of value, not always like the schema.
 */
function onlyErasedFieldsFail(
  event: RecordedEvent,
  issues: readonly { path: readonly PropertyKey[] }[],
  erasedSubjects: ReadonlySet<string>,
): boolean {
  const rule = personalDataRules[event.type];
  if (!rule) return false;
  const subject = rule.subjectOf(event.data);
  if (!erasedSubjects.has(subject)) return false;
  return issues.every((issue) =>
    rule.fields.some(
      (field) =>
        field.path.every((step, index) => issue.path[index] === step) &&
        isDeepStrictEqual(valueAt(event.data, field.path), field.erased(subject)),
    ),
  );
}

/** Every event's payload against its schema, and every stream folded through its decider's `evolve`. */
function replayStreams(
  events: readonly RecordedEvent[],
  erasedSubjects: ReadonlySet<string>,
  differences: string[],
): Map<string, unknown> {
  const states = new Map<string, unknown>();
  for (const event of events) {
    const definition = eventCatalogue.get(event.type);
    if (!definition) differences.push(`${event.streamId}@${event.revision}: unknown event type ${event.type}`);
    else {
      const parsed = definition.schema.safeParse(event.data);
      if (!parsed.success && !onlyErasedFieldsFail(event, parsed.error.issues, erasedSubjects))
        differences.push(`${event.streamId}@${event.revision}: ${event.type} does not match its schema`);
    }
    const decider = deciderFor(event.streamId);
    if (!decider) {
      if (!states.has(event.streamId))
        differences.push(`${event.streamId}: no decider folds streams of its kind, so it was not replayed`);
      states.set(event.streamId, undefined);
      continue;
    }
    try {
      const state = states.has(event.streamId) ? states.get(event.streamId) : decider.initialState();
      states.set(event.streamId, decider.evolve(state, { type: event.type, data: event.data }));
    } catch (error) {
      differences.push(`${event.streamId}@${event.revision}: ${event.type} cannot be replayed (${String(error)})`);
    }
  }
  return states;
}

/**
 * The data subjects whose personal fields may read as erased: those whose key was destroyed, and
 * those with a retired (destroyed) key of which events may still carry fields.
 */
async function erasedSubjectsOf(pool: pg.Pool): Promise<Set<string>> {
  const exists = await pool.query(
    "select to_regclass('pii.subject_keys') as keys, to_regclass('pii.retired_keys') as retired",
  );
  const { keys, retired } = exists.rows[0] ?? {};
  if (!keys) return new Set();
  const found = await pool.query<{ subject_id: string }>(
    `select subject_id from pii.subject_keys where shredded_at is not null
     ${retired ? 'union select subject_id from pii.retired_keys' : ''}`,
  );
  return new Set(found.rows.map((row) => row.subject_id));
}

type IssuedFamilyInvoice = Extract<familyInvoice.FamilyInvoiceState, { status: 'issued' }>;

/**
 * Every family invoice folded from its events against its own lines, discount, payments and credit
 * note, and against its read-model row (what was paid, whether credited).
 */
async function checkFamilyInvoices(readDb: pg.ClientBase, states: Map<string, unknown>, differences: string[]) {
  const issued = [...states.values()]
    .map((state) => state as familyInvoice.FamilyInvoiceState)
    .filter((state): state is IssuedFamilyInvoice => state.status === 'issued');
  const rows = await readDb.query<{
    id: string;
    total_pence: string;
    paid_pence: string;
    credit_note_id: string | null;
  }>('select id, total_pence, paid_pence, credit_note_id from family_invoices');
  const live = new Map(rows.rows.map((row) => [row.id, row]));
  for (const { invoice: issuedInvoice, paidPence, creditNote } of issued) {
    const name = `Family invoice ${issuedInvoice.reference}`;
    // A lessons invoice's lines carry their VAT, which the total includes (docs/money-models.md).
    const lines = issuedInvoice.lines.reduce((sum, line) => sum + line.amountPence + (line.vatPence ?? 0), 0);
    const expected = lines - (issuedInvoice.discountPence ?? 0);
    if (issuedInvoice.totalPence !== expected)
      differences.push(
        `${name}: total ${formatPounds(issuedInvoice.totalPence)}, its lines less discount ${formatPounds(expected)}`,
      );
    if (paidPence > issuedInvoice.totalPence)
      differences.push(
        `${name}: payments of ${formatPounds(paidPence)} exceed its total ${formatPounds(issuedInvoice.totalPence)}`,
      );
    const row = live.get(issuedInvoice.invoiceId);
    if (!row) {
      differences.push(`${name} is not in the family invoices read model`);
      continue;
    }
    if (Number(row.total_pence) !== issuedInvoice.totalPence)
      differences.push(
        `${name}: total ${formatPounds(Number(row.total_pence))} in the read model, ${formatPounds(issuedInvoice.totalPence)} issued`,
      );
    if (Number(row.paid_pence) !== paidPence)
      differences.push(
        `${name}: paid ${formatPounds(Number(row.paid_pence))} in the read model, ${formatPounds(paidPence)} by its payments`,
      );
    if ((row.credit_note_id ?? null) !== (creditNote?.creditNoteId ?? null))
      differences.push(`${name}: its credit note in the read model differs from the one issued`);
  }
  return issued.length;
}

/** Each family invoice's state folded from its events up to `upTo` (where its read model was pinned). */
function familyInvoicesUpTo(events: readonly RecordedEvent[], upTo: Position): Map<string, unknown> {
  const states = new Map<string, unknown>();
  const decider = familyInvoice.familyInvoiceDecider;
  for (const event of events) {
    if (deciderFor(event.streamId) !== decider || comparePositions(event.position, upTo) > 0) continue;
    const state = states.has(event.streamId) ? states.get(event.streamId) : decider.initialState();
    try {
      states.set(event.streamId, decider.evolve(state as familyInvoice.FamilyInvoiceState, event as never));
    } catch {
      // Told by the replay of every stream.
    }
  }
  return states;
}

export type VerifyHooks = {
  /** Called while the read models are compared (tests: commands go on meanwhile). */
  duringComparison?: () => Promise<void>;
};

/**
 * `npm run verify`'s checks: replays every stream through its decider, recomputes every tutor
 * invoice from its lessons and the engagement periods in force (the invoice trace), and rebuilds
 * the read models into a scratch schema to compare with the live ones. `readDb` is a pool whose
 * search path is the live read schema.
 *
 * Beside a running product: the rebuild is compared with the live read models where each live
 * projection stood at one moment (see `compareWithRebuild`), and what is checked against a read
 * model is the events up to that read model's position, so lag and commands made meanwhile are
 * never reported as differences, and nothing is held still longer than a moment.
 */
export async function verifyProduct(
  pool: pg.Pool,
  readDb: pg.Pool,
  store: EventStore,
  timeZone: string,
  onProgress: (progress: VerifyProgress) => void = () => {},
  hooks: VerifyHooks = {},
): Promise<VerifyReport> {
  const events = await readEverything(store);
  onProgress({ phase: 'events', done: events.length, total: events.length });

  const familyDifferences: string[] = [];
  let familyInvoices = 0;
  const rebuilt = await compareWithRebuild(
    pool,
    store,
    projections,
    (done) => onProgress({ phase: 'read models', done: Math.min(done, events.length), total: events.length }),
    {
      beforeCompare: hooks.duringComparison,
      inSnapshot: async (sql, pinned) => {
        // The live projections may have passed the events read above: read on to where they were pinned.
        events.push(...(await readEverything(store, events.at(-1)?.position)));
        const upTo = pinned.get('family-invoices')?.position;
        if (upTo) familyInvoices = await checkFamilyInvoices(sql, familyInvoicesUpTo(events, upTo), familyDifferences);
      },
    },
  );

  const differences: string[] = [];
  const states = replayStreams(events, await erasedSubjectsOf(pool), differences);
  // Only invoices the invoices read model had reached when it was pinned (later ones are compared next time).
  const invoicesAt = rebuilt.pinned.get('invoices')?.position;
  const generated = events.filter(
    (event) =>
      event.type === 'InvoiceGenerated' &&
      invoicesAt !== undefined &&
      comparePositions(event.position, invoicesAt) <= 0,
  );
  for (const [index, event] of generated.entries()) {
    const invoiceId = (event.data as { invoiceId: string }).invoiceId;
    const trace = await traceInvoice(readDb, store, timeZone, invoiceId);
    if (!trace) differences.push(`Invoice ${invoiceId} is not in the invoices read model`);
    else
      for (const difference of trace.differences) differences.push(`Invoice ${trace.invoice.reference}: ${difference}`);
    onProgress({ phase: 'invoices', done: index + 1, total: generated.length });
  }
  differences.push(...familyDifferences);
  const documents = await checkDocuments(pool, events, await erasedSubjectsOf(pool), differences, (done, total) =>
    onProgress({ phase: 'documents', done, total }),
  );

  for (const failure of rebuilt.failures)
    differences.push(
      `Read model ${failure.projection} could not apply ${failure.failure.type} (${failure.failure.streamId}): ${failure.failure.error}`,
    );
  for (const { table, onlyLive, onlyRebuilt } of rebuilt.differences)
    differences.push(
      `Read model table ${table}: ${onlyLive} live row(s) not in a rebuild, ${onlyRebuilt} rebuilt row(s) not live`,
    );
  for (const { name, failure } of rebuilt.pinned.values())
    if (failure)
      differences.push(
        `Read model ${name} is stopped before ${failure.type} (${failure.streamId}) at ${failure.position}: ${failure.error}`,
      );
  return {
    events: events.length,
    streams: states.size,
    invoices: generated.length,
    familyInvoices,
    documents,
    differences,
  };
}
