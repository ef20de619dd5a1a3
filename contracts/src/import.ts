import { z } from 'zod';
import { toCsv } from './csv';
import { LIMITS } from './limits';

/** What a CSV file can bring in (docs/import.md). */
export const IMPORT_KINDS = ['families', 'tutors', 'engagements'] as const;
export const importKind = z.enum(IMPORT_KINDS, { error: 'Choose families, tutors or engagements' });
export type ImportKind = z.infer<typeof importKind>;

/** The children a family row may name: `child_1_…` to `child_N_…`. */
export const MAX_IMPORT_CHILDREN = 10;

const contactColumns = [
  'first_name',
  'last_name',
  'email',
  'phone',
  'address_1',
  'address_2',
  'address_3',
  'address_4',
  'postcode',
] as const;

/**
 * Each kind's template: its columns in order, and one example row. Headers are matched loosely
 * (`First Name` is `first_name`); columns a file adds are ignored.
 */
export const IMPORT_TEMPLATES: Record<ImportKind, { columns: readonly string[]; example: readonly string[] }> = {
  families: {
    columns: [
      'reference',
      ...contactColumns,
      'child_1_first_name',
      'child_1_last_name',
      'child_1_dob',
      'child_2_first_name',
      'child_2_last_name',
      'child_2_dob',
    ],
    example: [
      'F001',
      'Jane',
      'Smith',
      'jane.smith@example.com',
      '07700 900001',
      '2 Mill Lane',
      '',
      'Oxford',
      '',
      'OX2 6AA',
      'Alice',
      'Smith',
      '14/03/2012',
      'Tom',
      '',
      '2014-09-01',
    ],
  },
  tutors: {
    columns: ['reference', ...contactColumns, 'username', 'invoice_prefix', 'start_date'],
    example: [
      'T001',
      'Sam',
      'Jones',
      'sam.jones@example.com',
      '07700 900002',
      '5 High Street',
      '',
      'Oxford',
      '',
      'OX1 4AA',
      'samjones',
      'SJ',
      '01/09/2024',
    ],
  },
  engagements: {
    columns: [
      'reference',
      'tutor_reference',
      'family_reference',
      'child',
      'rate',
      'commission',
      'partner_share',
      'start_date',
      'subjects',
    ],
    example: ['E001', 'T001', 'F001', 'Alice', '£45.00', '25%', '0%', '01/10/2024', 'Maths, Physics'],
  },
};

/** A kind's template, as `GET /api/import/templates/{kind}.csv` sends it. */
export const importTemplate = (kind: ImportKind) => {
  const { columns, example } = IMPORT_TEMPLATES[kind];
  return toCsv([columns, example]);
};

/**
 * `POST /api/import` (admin): a CSV file's text, which column keys its rows (the agency's own
 * reference), and whether this is a dry run. `offset`/`limit` take a slice of the file's rows,
 * so a long file can be sent in parts (a progress bar); every row keeps its own row number.
 */
export const importBody = z.object({
  kind: importKind,
  csv: z
    .string({ error: 'The file is required' })
    .min(1, 'The file is empty')
    .max(
      LIMITS.maxImportCharacters,
      `The file is too large (${LIMITS.maxImportCharacters.toLocaleString('en-GB')} characters at most)`,
    ),
  key: z
    .string()
    .trim()
    .max(LIMITS.maxTextLength, 'The key column name is too long')
    .default('reference')
    .transform((value) => value || 'reference'),
  dryRun: z.boolean({ error: 'dryRun must be true or false' }).default(false),
  offset: z.number().int().min(0).max(LIMITS.maxImportRows).default(0),
  limit: z.number().int().min(1).max(LIMITS.maxImportRows).default(LIMITS.maxImportRows),
});
export type ImportBody = z.infer<typeof importBody>;

export const IMPORT_OUTCOMES = ['create', 'update', 'unchanged', 'refused'] as const;
export type ImportOutcome = (typeof IMPORT_OUTCOMES)[number];

export const importRowAnswer = z.object({
  /** The row's number as the spreadsheet shows it (the header is row 1). */
  row: z.number(),
  /** The key column's value. */
  key: z.string(),
  /** On a dry run, what the real run would do; on the real run, what it did. */
  outcome: z.enum(IMPORT_OUTCOMES),
  /** The family's, tutor's or engagement's id (none when refused). */
  id: z.string().optional(),
  /** Why the row was refused, in words; `fields` names the columns at fault. */
  reason: z.string().optional(),
  fields: z.record(z.string(), z.string()).optional(),
});
export type ImportRowAnswer = z.infer<typeof importRowAnswer>;

export const importSummary = z.object({
  rows: z.number(),
  create: z.number(),
  update: z.number(),
  unchanged: z.number(),
  refused: z.number(),
});
export type ImportSummary = z.infer<typeof importSummary>;

export const importAnswer = z.object({
  kind: importKind,
  dryRun: z.boolean(),
  /** Rows in the whole file (not only the slice sent for). */
  totalRows: z.number(),
  rows: z.array(importRowAnswer),
  summary: importSummary,
});
export type ImportAnswer = z.infer<typeof importAnswer>;

export const importSummaryOf = (rows: readonly Pick<ImportRowAnswer, 'outcome'>[]): ImportSummary => {
  const summary: ImportSummary = { rows: rows.length, create: 0, update: 0, unchanged: 0, refused: 0 };
  for (const { outcome } of rows) summary[outcome] += 1;
  return summary;
};
