import {
  type CsvValue,
  csvRow,
  type FamilyInvoiceState,
  type FamilyLedgerAnswer,
  type FamilyLedgerEntry,
  PAGE_SIZE,
} from '@agency/contracts';
import { toPounds } from '@agency/domain';
import type pg from 'pg';
import { withMoney } from '../money-columns';
import { decodeCursor, encodeCursor } from '../paging';
import { invoiceOwedSql, invoiceStateSql } from './invoice-state';

/** Which entries of the ledger are asked for: one family's, of invoices in one state, dated in a period. */
export type LedgerFilters = {
  clientId: string | null;
  state: FamilyInvoiceState | null;
  /** Entries dated from `from` (included) to `to` (excluded); null: any date. */
  period: { from: string; to: string } | null;
};

/** A year's entries, or a month's (`month` 1 to 12). */
export function periodOf(year: number | undefined, month: number | undefined): LedgerFilters['period'] {
  if (year === undefined) return null;
  const day = (y: number, m: number) => `${y}-${String(m).padStart(2, '0')}-01`;
  if (month === undefined) return { from: day(year, 1), to: day(year + 1, 1) };
  return { from: day(year, month), to: month === 12 ? day(year + 1, 1) : day(year, month + 1) };
}

/**
 * Entries in the ledger's order, newest first; on one day a payment above the credit note above
 * the invoice (the order they happen in), then by id. A cursor is the last entry shown by these
 * three (never a name), so the next page starts after it even if that entry has left the list.
 */
const KIND_ORDER = { invoice: 0, 'credit note': 1, payment: 2 } as const;
const isCursor = ([date, order]: string[]) => /^\d{4}-\d{2}-\d{2}$/.test(date ?? '') && /^[012]$/.test(order ?? '');

/**
 * The ledger's entries: each invoice with its state now and what is owed on it (invoice-state.ts),
 * its credit note and its payments. The family is
 * named by its first contact now, or by the billed name when a workshop booking had no family.
 */
const LEDGER = `
  with invoices as (
    select f.id, f.reference, f.date, f.billed_kind, f.total_pence, f.paid_pence, f.credit_note_id,
           f.credit_note_reference, f.credit_note_date, cl.id as client_id,
           coalesce(k.first_name || ' ' || k.last_name, f.billing ->> 'name', '') as family,
           ${invoiceStateSql('f')} as state, ${invoiceOwedSql('f')} as owed_pence
      from family_invoices f
      left join clients cl on cl.id = f.client_id
      left join contacts k on k.client_id = f.client_id and k.seq = 0
     where ($1::text is null or f.client_id = $1)
  ),
  entries as (
    select 'invoice' as kind, ${KIND_ORDER.invoice} as ord, i.id, i.date, i.reference, i.id as invoice_id,
           i.reference as invoice_reference, i.client_id, i.family, i.billed_kind, i.state,
           i.total_pence as amount_pence, i.owed_pence
      from invoices i
    union all
    select 'credit note', ${KIND_ORDER['credit note']}, i.credit_note_id, i.credit_note_date, i.credit_note_reference,
           i.id, i.reference, i.client_id, i.family, i.billed_kind, i.state, i.total_pence, null
      from invoices i where i.credit_note_id is not null
    union all
    select 'payment', ${KIND_ORDER.payment}, p.id, p.date, i.reference, i.id, i.reference, i.client_id, i.family,
           i.billed_kind, i.state, p.amount_pence, null
      from family_payments p join invoices i on i.id = p.invoice_id
  ),
  listed as (
    select * from entries
     where ($2::text is null or state = $2) and ($3::date is null or (date >= $3::date and date < $4::date))
  )`;

const ENTRY_COLUMNS = `kind, ord, id, to_char(date, 'YYYY-MM-DD') as date, reference, invoice_id, invoice_reference,
  client_id, family, billed_kind, state, amount_pence, owed_pence`;

type EntryRow = {
  kind: FamilyLedgerEntry['kind'];
  ord: number;
  id: string;
  date: string;
  reference: string;
  invoice_id: string;
  invoice_reference: string;
  client_id: string | null;
  family: string;
  billed_kind: FamilyLedgerEntry['billedFor'];
  state: FamilyInvoiceState;
  amount_pence: number;
  owed_pence: number | null;
};

const filterParams = ({ clientId, state, period }: LedgerFilters) => [
  clientId,
  state,
  period?.from ?? null,
  period?.to ?? null,
];

const entryOf = (row: EntryRow): FamilyLedgerEntry => ({
  kind: row.kind,
  id: row.id,
  date: row.date,
  reference: row.reference,
  invoiceId: row.invoice_id,
  invoiceReference: row.invoice_reference,
  clientId: row.client_id,
  family: row.family,
  billedFor: row.billed_kind,
  amount: toPounds(row.amount_pence),
  state: row.state,
  owed: row.owed_pence === null ? null : toPounds(row.owed_pence),
});

/** One page of entries after `cursor` (the previous page's `nextCursor`), and the next page's cursor. */
async function pageOfEntries(db: pg.Pool, filters: LedgerFilters, limit: number, cursor: string | undefined) {
  const [date = null, order = null, id = null] = cursor === undefined ? [] : decodeCursor(cursor, 3, isCursor);
  const found = await db.query(
    `${LEDGER}
     select ${ENTRY_COLUMNS} from listed
      where ($5::date is null or (date, ord, id) < ($5::date, $6::int, $7::text))
      order by date desc, ord desc, id desc
      limit $8`,
    [...filterParams(filters), date, order, id, limit + 1],
  );
  const rows = found.rows.map((row) => withMoney(row) as EntryRow);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    entries: page.map(entryOf),
    nextCursor: rows.length > limit && last ? encodeCursor([last.date, String(last.ord), last.id]) : null,
  };
}

/** A page of the ledger, with the count and the totals of every filtered entry. */
export async function ledgerPage(
  db: pg.Pool,
  filters: LedgerFilters,
  { limit, cursor }: { limit: number; cursor: string | undefined },
): Promise<FamilyLedgerAnswer> {
  const [page, whole] = await Promise.all([
    pageOfEntries(db, filters, limit, cursor),
    db.query(
      `${LEDGER}
       select count(*)::int as total,
              coalesce(sum(amount_pence) filter (where kind = 'invoice'), 0) as invoiced_pence,
              coalesce(sum(amount_pence) filter (where kind = 'credit note'), 0) as credited_pence,
              coalesce(sum(amount_pence) filter (where kind = 'payment'), 0) as paid_pence,
              coalesce(sum(owed_pence), 0) as owed_pence
         from listed`,
      filterParams(filters),
    ),
  ]);
  const sums = withMoney(whole.rows[0]);
  return {
    ...page,
    total: sums.total,
    totals: {
      invoiced: toPounds(sums.invoiced_pence),
      credited: toPounds(sums.credited_pence),
      paid: toPounds(sums.paid_pence),
      owed: toPounds(sums.owed_pence),
    },
  };
}

const LEDGER_CSV_HEADER = [
  'Date',
  'Kind',
  'Reference',
  'Invoice',
  'Family',
  'For',
  'State',
  'Invoiced',
  'Credited',
  'Paid',
  'Owed',
];

/** An entry as a CSV row: its amount in the column of its kind (Invoiced, Credited or Paid), in pounds. */
export const ledgerCsvRow = (entry: FamilyLedgerEntry): CsvValue[] => [
  entry.date,
  entry.kind,
  entry.reference,
  entry.invoiceReference,
  entry.family,
  entry.billedFor,
  entry.state,
  entry.kind === 'invoice' ? entry.amount : null,
  entry.kind === 'credit note' ? entry.amount : null,
  entry.kind === 'payment' ? entry.amount : null,
  entry.owed,
];

/**
 * Every filtered entry as CSV through the one writer (docs/csv.md), written page by page as the
 * pages are read: never the whole ledger in memory.
 */
export async function* ledgerCsv(db: pg.Pool, filters: LedgerFilters): AsyncGenerator<string> {
  yield csvRow(LEDGER_CSV_HEADER);
  let cursor: string | undefined;
  do {
    const page = await pageOfEntries(db, filters, PAGE_SIZE.familyInvoices.max, cursor);
    if (page.entries.length > 0) yield page.entries.map((entry) => csvRow(ledgerCsvRow(entry))).join('');
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
}
