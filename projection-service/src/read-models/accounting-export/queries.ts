import { Readable } from 'node:stream';
import { accountingExportQuery, type CsvValue, csvRow, nonJsonAnswer, readsAsAdmin } from '@agency/contracts';
import { toPounds } from '@agency/domain';
import { forbidden } from '@agency/platform';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type pg from 'pg';
import { requireSignIn } from '../../signed-in';
import { withMoney } from '../money-columns';

/** The agency's sales account and tax rates as Xero and QuickBooks name them by default (docs/accounting-export.md). */
export const ACCOUNTING_CODES = {
  salesAccount: '200',
  xeroTax: 'No VAT',
  quickBooksTax: 'No VAT',
  /** A line charged VAT at the standard rate (a lessons invoice the agency sells with VAT). */
  xeroStandardTax: '20% (VAT on Income)',
  quickBooksStandardTax: '20.0% S',
  currency: 'GBP',
};

/** A line's tax type: standard rate when it was charged VAT at 20 %, otherwise none. */
const taxOf = (r: ExportRow, layout: 'xero' | 'quickbooks') =>
  r.vat_rate_bp === 2000
    ? layout === 'xero'
      ? ACCOUNTING_CODES.xeroStandardTax
      : ACCOUNTING_CODES.quickBooksStandardTax
    : layout === 'xero'
      ? ACCOUNTING_CODES.xeroTax
      : ACCOUNTING_CODES.quickBooksTax;

type ExportRow = {
  row_id: string;
  part: 'sales' | 'payments';
  source: 'family' | 'tutor';
  line_no: number;
  doc_number: string;
  against_number: string | null;
  name: string;
  email: string;
  date: string;
  due_date: string;
  description: string;
  amount_pence: number;
  vat_pence: number;
  vat_rate_bp: number;
};

/** A day as UK Xero and QuickBooks read it: DD/MM/YYYY. */
const ukDate = (date: string) => `${date.slice(8, 10)}/${date.slice(5, 7)}/${date.slice(0, 4)}`;
/**
 * An amount as a number of pounds (175, -175, 99.99): written as a value, so a credit's minus is
 * never taken for a formula (docs/csv.md). Pence over 100 print exactly as their shortest decimal.
 */
const amount = (pence: number) => toPounds(pence);

const LAYOUTS = {
  xero: {
    sales: {
      head: [
        'ContactName',
        'EmailAddress',
        'InvoiceNumber',
        'Reference',
        'InvoiceDate',
        'DueDate',
        'Description',
        'Quantity',
        'UnitAmount',
        'AccountCode',
        'TaxType',
        'TaxAmount',
        'Currency',
      ],
      // A credit note is a negative invoice to Xero's importer; Reference holds the row's stable id.
      row: (r: ExportRow): CsvValue[] => [
        r.name,
        r.email,
        r.doc_number,
        r.row_id,
        ukDate(r.date),
        ukDate(r.due_date),
        r.against_number ? `${r.description} (credits ${r.against_number})` : r.description,
        1,
        amount(r.amount_pence),
        ACCOUNTING_CODES.salesAccount,
        taxOf(r, 'xero'),
        amount(r.vat_pence),
        ACCOUNTING_CODES.currency,
      ],
    },
    payments: {
      head: ['Date', 'Amount', 'Payee', 'Description', 'Reference'],
      row: (r: ExportRow): CsvValue[] => [ukDate(r.date), amount(r.amount_pence), r.name, r.description, r.row_id],
    },
  },
  quickbooks: {
    sales: {
      head: [
        'Invoice no',
        'Customer',
        'Invoice date',
        'Due date',
        'Item(Product/Service)',
        'Item description',
        'Item quantity',
        'Item rate',
        'Item amount',
        'Item tax code',
        'Item tax amount',
        'Memo',
      ],
      row: (r: ExportRow): CsvValue[] => [
        r.doc_number,
        r.name,
        ukDate(r.date),
        ukDate(r.due_date),
        r.source === 'tutor' ? 'Commission' : 'Tuition services',
        r.against_number ? `${r.description} (credits ${r.against_number})` : r.description,
        1,
        amount(r.amount_pence),
        amount(r.amount_pence),
        taxOf(r, 'quickbooks'),
        amount(r.vat_pence),
        r.row_id,
      ],
    },
    payments: {
      head: ['Date', 'Description', 'Amount'],
      row: (r: ExportRow): CsvValue[] => [
        ukDate(r.date),
        `${r.description} from ${r.name} (${r.row_id})`,
        amount(r.amount_pence),
      ],
    },
  },
} as const;

/**
 * The rows of a period, of one part (sales documents or payments), recorded after `since` when
 * given, in a fixed order (date, document, line, id), so the same period exported twice is the same
 * bytes. A family is named as billed ("Erased" once erased), a tutor by the tutors read model.
 */
export async function exportRows(
  db: pg.Pool,
  query: { from: string; to: string; part: 'sales' | 'payments'; since?: { commit: string; prepare: string } },
): Promise<ExportRow[]> {
  const { rows } = await db.query(
    `select a.row_id, a.part, a.source, a.line_no, a.doc_number, a.against_number,
            coalesce(a.contact_name, t.first_name || ' ' || t.last_name, '') as name,
            coalesce(a.contact_email, t.email, '') as email,
            to_char(a.date, 'YYYY-MM-DD') as date, to_char(a.due_date, 'YYYY-MM-DD') as due_date, a.description,
            a.amount_pence, a.vat_pence, a.vat_rate_bp
       from accounting_rows a
       left join tutors t on a.source = 'tutor' and t.id = a.contact_id
      where a.part = $1 and a.date between $2::date and $3::date
        and ($4::bigint is null or (a.commit_position, a.prepare_position) > ($4::bigint, $5::bigint))
      order by a.date, a.doc_number, a.line_no, a.row_id`,
    [query.part, query.from, query.to, query.since?.commit ?? null, query.since?.prepare ?? null],
  );
  return rows.map((row) => withMoney(row) as ExportRow);
}

/** Everything recorded so far: the mark a later export's `since` takes. */
async function exportMark(db: pg.Pool) {
  const { rows } = await db.query(
    `select commit_position, prepare_position from accounting_rows
      order by commit_position desc, prepare_position desc limit 1`,
  );
  return rows[0] ? `${rows[0].commit_position}.${rows[0].prepare_position}` : '0.0';
}

/**
 * `GET /api/reports/accounting-export?from&to&layout&part[&since]`: the accountant's export
 * (admins and auditors), CSV through the one writer (docs/csv.md). Its `export-mark` header is what
 * `since` takes next time, for only what was recorded after this export.
 */
export async function accountingExportQueries(fastify: FastifyInstance, { db }: { db: pg.Pool }) {
  requireSignIn(fastify);
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const schema = {
    querystring: accountingExportQuery,
    response: { 200: nonJsonAnswer('text/csv', 'One row per document line (or payment), in the layout asked for') },
  };
  app.get('/api/reports/accounting-export', { schema }, async (request, reply) => {
    if (!readsAsAdmin(request.signedIn.role)) throw forbidden('The accountant’s export is for admins and auditors.');
    const { from, to, layout, part, since } = request.query;
    const [commit = '0', prepare = '0'] = since?.split('.') ?? [];
    // The mark first: a row recorded while the rows are read is then in both (its id de-duplicates it), never in neither.
    const mark = await exportMark(db);
    const rows = await exportRows(db, { from, to, part, since: since ? { commit, prepare } : undefined });
    const { head, row } = LAYOUTS[layout][part];
    const text = [csvRow(head), ...rows.map((r) => csvRow(row(r)))].join('');
    return reply
      .type('text/csv; charset=utf-8')
      .header(
        'content-disposition',
        `attachment; filename="${layout}-${part}-${from}-${to}${since ? '-since' : ''}.csv"`,
      )
      .header('cache-control', 'private, no-store')
      .header('export-mark', mark)
      .send(Readable.from([text]));
  });
}
