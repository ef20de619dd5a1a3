import { eventCatalogue } from '@agency/contracts';
import {
  client,
  type Decider,
  engagement,
  familyInvoice,
  formatPounds,
  invoice,
  timesheet,
  tutor,
  user,
  workshop,
} from '@agency/domain';
import type { EventStore, Position, RecordedEvent } from '@agency/platform';
import { compareWithRebuild, projections } from '@agency/projection-service';
import { traceInvoice } from '@agency/projection-service/audit/invoice-trace';
import type pg from 'pg';

// biome-ignore lint/suspicious/noExplicitAny: each stream folds its own command, event and state types.
type AnyDecider = Decider<any, any, any>;

/** Each stream's decider, by the stream id's prefix (`engagement-…`): the same folds the commands use. */
const DECIDERS: [prefix: string, decider: AnyDecider][] = [
  ['client-', client.clientDecider],
  ['tutor-', tutor.tutorDecider],
  ['engagement-', engagement.engagementDecider],
  ['timesheet-', timesheet.timesheetDecider],
  ['invoice-', invoice.invoiceDecider],
  ['user-', user.userDecider],
  // The numbering stream first: it shares the family invoices' prefix.
  [familyInvoice.sequenceStream(), familyInvoice.sequenceDecider],
  ['family-invoice-', familyInvoice.familyInvoiceDecider],
  [workshop.workshopStream(''), workshop.workshopDecider],
  [workshop.accountStream(''), workshop.accountDecider],
];

export type VerifyProgress = { phase: 'events' | 'invoices' | 'read models'; done: number; total: number };

export type VerifyReport = {
  events: number;
  streams: number;
  invoices: number;
  familyInvoices: number;
  /** Every difference found, in words; empty when everything agrees. */
  differences: string[];
};

async function readEverything(store: EventStore): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = [];
  let from: Position | undefined;
  for (;;) {
    const page = await store.readAll({ from, limit: 1000 });
    if (page.length === 0) return events;
    events.push(...page);
    from = page.at(-1)?.position;
  }
}

/** Every event's payload against its schema, and every stream folded through its decider's `evolve`. */
function replayStreams(events: readonly RecordedEvent[], differences: string[]): Map<string, unknown> {
  const states = new Map<string, unknown>();
  for (const event of events) {
    const definition = eventCatalogue.get(event.type);
    if (!definition) differences.push(`${event.streamId}@${event.revision}: unknown event type ${event.type}`);
    else if (!definition.schema.safeParse(event.data).success)
      differences.push(`${event.streamId}@${event.revision}: ${event.type} does not match its schema`);
    const decider = DECIDERS.find(([prefix]) => event.streamId.startsWith(prefix))?.[1];
    if (!decider) continue;
    try {
      const state = states.has(event.streamId) ? states.get(event.streamId) : decider.initialState();
      states.set(event.streamId, decider.evolve(state, { type: event.type, data: event.data }));
    } catch (error) {
      differences.push(`${event.streamId}@${event.revision}: ${event.type} cannot be replayed (${String(error)})`);
    }
  }
  return states;
}

type IssuedFamilyInvoice = Extract<familyInvoice.FamilyInvoiceState, { status: 'issued' }>;

/**
 * Every family invoice folded from its events against its own lines, discount, payments and credit
 * note, and against its read-model row (what was paid, whether credited).
 */
async function checkFamilyInvoices(readDb: pg.Pool, states: Map<string, unknown>, differences: string[]) {
  const issued = [...states]
    .filter(([streamId]) => streamId.startsWith('family-invoice-') && streamId !== familyInvoice.sequenceStream())
    .map(([, state]) => state as familyInvoice.FamilyInvoiceState)
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
    const lines = issuedInvoice.lines.reduce((sum, line) => sum + line.amountPence, 0);
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

/**
 * `npm run verify`'s checks: replays every stream through its decider, recomputes every tutor
 * invoice from its lessons and the engagement periods in force (the invoice trace), and rebuilds
 * the read models into a scratch schema to compare with the live ones. `readDb` is a pool whose
 * search path is the live read schema.
 */
export async function verifyProduct(
  pool: pg.Pool,
  readDb: pg.Pool,
  store: EventStore,
  timeZone: string,
  onProgress: (progress: VerifyProgress) => void = () => {},
): Promise<VerifyReport> {
  const differences: string[] = [];
  const events = await readEverything(store);
  const states = replayStreams(events, differences);
  onProgress({ phase: 'events', done: events.length, total: events.length });

  const generated = events.filter((event) => event.type === 'InvoiceGenerated');
  for (const [index, event] of generated.entries()) {
    const invoiceId = (event.data as { invoiceId: string }).invoiceId;
    const trace = await traceInvoice(readDb, store, timeZone, invoiceId);
    if (!trace) differences.push(`Invoice ${invoiceId} is not in the invoices read model`);
    else
      for (const difference of trace.differences) differences.push(`Invoice ${trace.invoice.reference}: ${difference}`);
    onProgress({ phase: 'invoices', done: index + 1, total: generated.length });
  }
  const familyInvoices = await checkFamilyInvoices(readDb, states, differences);

  const rebuilt = await compareWithRebuild(pool, store, projections, (done) =>
    onProgress({ phase: 'read models', done: Math.min(done, events.length), total: events.length }),
  );
  for (const failure of rebuilt.failures)
    differences.push(
      `Read model ${failure.projection} could not apply ${failure.failure.type} (${failure.failure.streamId}): ${failure.failure.error}`,
    );
  for (const { table, onlyLive, onlyRebuilt } of rebuilt.differences)
    differences.push(
      `Read model table ${table}: ${onlyLive} live row(s) not in a rebuild, ${onlyRebuilt} rebuilt row(s) not live`,
    );
  return { events: events.length, streams: states.size, invoices: generated.length, familyInvoices, differences };
}
