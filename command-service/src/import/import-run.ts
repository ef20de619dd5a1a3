import {
  CsvSyntaxError,
  columnName,
  type ImportAnswer,
  type ImportBody,
  type ImportKind,
  type ImportRowAnswer,
  importSummaryOf,
  LIMITS,
  MAX_IMPORT_CHILDREN,
  readCsv,
  type SessionUser,
} from '@agency/contracts';
import { client, tutor } from '@agency/domain';
import { comparePositions, HttpError, type Position } from '@agency/platform';
import type pg from 'pg';
import { ENGAGEMENT_START } from '../engagements/engagement-start-reactor';
import { settledTutor } from '../engagements/roster';
import { type CommandDependencies, createCommandContext, derivedId } from '../pipeline/command-pipeline';
import { StreamStates } from '../pipeline/stream-states';
import type { TutorNames } from '../tutors/tutor-names';
import { ENGAGEMENT_COLUMNS, type EngagementReads, planEngagement } from './engagement-rows';
import { planFamily } from './family-rows';
import { CONTACT_COLUMNS, type ImportRow, inSequence, type RowPlan, refusalOf, rowsOf } from './import-rows';
import { namesInUse, planTutor, TUTOR_COLUMNS } from './tutor-rows';

export type ImportOptions = { deps: CommandDependencies; db: pg.Pool; names: TutorNames; timeZone: string };

/** The columns a kind's rows cannot do without: a file that lacks one is refused whole, before any row. */
const REQUIRED_COLUMNS: Record<ImportKind, string[]> = {
  families: ['first_name', 'last_name', 'email', 'phone', 'address_1', 'postcode'],
  tutors: ['first_name', 'last_name', 'email', 'postcode'],
  engagements: ['tutor_reference', 'family_reference', 'child', 'rate', 'start_date'],
};

/** The columns a kind's rows read (besides the key column): each may be named once only. */
const KNOWN_COLUMNS: Record<ImportKind, string[]> = {
  families: [
    ...Object.values(CONTACT_COLUMNS),
    'phone_2',
    'address_2',
    'address_3',
    'address_4',
    ...Array.from({ length: MAX_IMPORT_CHILDREN }, (_, at) =>
      ['first_name', 'last_name', 'dob'].map((part) => `child_${at + 1}_${part}`),
    ).flat(),
  ],
  tutors: [...Object.values(TUTOR_COLUMNS), 'phone_2', 'address_2', 'address_3', 'address_4'],
  engagements: [...Object.values(ENGAGEMENT_COLUMNS), 'family_reference'],
};

/** The file's columns for the paths a kind's commands name in their refusals. */
const COLUMNS_OF: Record<ImportKind, Record<string, string>> = {
  families: CONTACT_COLUMNS,
  tutors: TUTOR_COLUMNS,
  engagements: ENGAGEMENT_COLUMNS,
};

/**
 * Families are independent of each other (one stream each): this many rows are run at once.
 * Tutors (whose suggested names depend on the rows before) and engagements (several per tutor's
 * roster) run one after another.
 */
const FAMILIES_AT_ONCE = 8;

/** How long the answer waits for the lists (and, for engagements, their own streams) to show the rows. */
const SETTLE_MS = 30_000;

const invalid = (field: string, message: string) => new HttpError(400, 'invalid_input', message, { [field]: message });

/** The file's rows, read and checked as a whole: a file the import cannot read is a 400, and nothing is written. */
function fileRows(body: ImportBody) {
  let document: ReturnType<typeof readCsv>;
  try {
    document = readCsv(body.csv);
  } catch (error) {
    if (error instanceof CsvSyntaxError) throw invalid('csv', error.message);
    throw error;
  }
  if (document.records.length > LIMITS.maxImportRows) {
    throw new HttpError(
      400,
      'too_many_rows',
      `The file has ${document.records.length.toLocaleString('en-GB')} rows: ${LIMITS.maxImportRows.toLocaleString('en-GB')} at most. Split it into smaller files.`,
      { csv: `At most ${LIMITS.maxImportRows.toLocaleString('en-GB')} rows` },
    );
  }
  const named = document.header.map(columnName);
  const columns = new Set(named);
  const key = columnName(body.key);
  if (!columns.has(key)) throw invalid('key', `The file has no column ${body.key} to key its rows by.`);
  // Two columns the import reads under one name: which one the agency meant cannot be told.
  const read = new Set([key, ...KNOWN_COLUMNS[body.kind]]);
  const twice = [...columns].filter(
    (column) => read.has(column) && named.indexOf(column) !== named.lastIndexOf(column),
  );
  if (twice.length > 0)
    throw invalid('csv', `The file names the column ${twice.join(', ')} more than once: keep one of each.`);
  // Children past the last the import reads would be left out without a word: the file is refused.
  const past = [...columns].filter((column) => Number(/^child_(\d+)_/.exec(column)?.[1]) > MAX_IMPORT_CHILDREN);
  if (body.kind === 'families' && past.length > 0)
    throw invalid('csv', `A row names children 1 to ${MAX_IMPORT_CHILDREN} at most: the file has ${past.join(', ')}.`);
  const lacking = REQUIRED_COLUMNS[body.kind].filter((column) => !columns.has(column));
  if (lacking.length > 0) throw invalid('csv', `The file lacks the columns ${lacking.join(', ')} (see the template).`);
  return { key, rows: rowsOf(document.header, document.records) };
}

/** Runs `work` over `items`, `atOnce` at a time, answers in their order. */
async function inBatches<T, A>(items: T[], atOnce: number, work: (item: T) => Promise<A>): Promise<A[]> {
  const answers: A[] = new Array(items.length);
  let next = 0;
  // A failure that is no refusal (the database gone) stops every worker: no row starts after it.
  let failed = false;
  const worker = async () => {
    for (let at = next++; at < items.length && !failed; at = next++) {
      try {
        answers[at] = await work(items[at] as T);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(atOnce, items.length) }, worker));
  return answers;
}

/**
 * `POST /api/import`: each row of the slice asked for is planned on what the store holds (the
 * route's own contract and deciders refuse what they would refuse), then, unless this is a dry
 * run, written through the command pipeline. A row's write has a command id derived from the
 * kind, its key and its content (and the revision it was decided at), so a file run again, or a
 * run cut short and retried, writes each row once; a refused row is answered and the others go on.
 */
export async function runImport(body: ImportBody, user: SessionUser, options: ImportOptions): Promise<ImportAnswer> {
  const { deps, db, names, timeZone } = options;
  const { key, rows } = fileRows(body);
  const now = deps.clock();
  const firstRowOf = new Map<string, number>();
  for (const row of rows) {
    const value = row.cell(key).toLowerCase();
    if (value && !firstRowOf.has(value)) firstRowOf.set(value, row.row);
  }
  const slice = rows.slice(body.offset, body.offset + body.limit);
  const inUse = body.kind === 'tutors' ? await namesInUse(db) : undefined;
  const reads: EngagementReads = { families: new Map(), rosters: new Map() };
  let furthest: Position | undefined;
  const kept = new StreamStates([inSequence(client.clientDecider), inSequence(tutor.tutorDecider)]);
  const writing: CommandDependencies = { ...deps, states: kept };

  const plan = (row: ImportRow, value: string): Promise<RowPlan> => {
    const common = { store: deps.store, now };
    switch (body.kind) {
      case 'families':
        return planFamily(row, value, { ...common, timeZone });
      case 'tutors':
        return planTutor(row, value, { ...common, timeZone, names, inUse: inUse! });
      case 'engagements':
        return planEngagement(row, value, {
          ...common,
          reads,
          dryRun: body.dryRun,
          settleRoster: (tutorId, context) => settledTutor(deps, tutorId, context),
        });
      default: {
        const _never: never = body.kind;
        return _never;
      }
    }
  };

  const write = async (row: ImportRow, value: string, { write: planned }: RowPlan) => {
    if (!planned) return;
    const rowCommandId = derivedId('import', body.kind, value.toLowerCase(), row.content);
    const commandId = derivedId(rowCommandId, planned.stream, planned.revision);
    // The write decides on the stream as the plan read it (appended at that revision: a stream
    // that moved on since is read again from there), rather than reading it once more.
    kept.put(planned.decider, planned.stream, planned.folded);
    const { context, appendedUpTo } = createCommandContext(writing, user, commandId, rowCommandId, now);
    await planned.before?.(context);
    try {
      await context.run(planned.stream, planned.decider, planned.commands);
    } catch (error) {
      if (!appendedUpTo()) await planned.undo?.();
      throw error;
    }
    const position = appendedUpTo();
    if (position && (!furthest || comparePositions(position, furthest) > 0)) furthest = position;
  };

  const importRow = async (row: ImportRow): Promise<ImportRowAnswer> => {
    const value = row.cell(key);
    const answer = { row: row.row, key: value };
    try {
      if (!value) throw refusalOf(invalid(key, `The ${key} column is blank`));
      const first = firstRowOf.get(value.toLowerCase());
      if (first !== row.row) throw refusalOf(invalid(key, `Row ${first} has the same ${key}`));
      const planned = await plan(row, value);
      if (!body.dryRun) await write(row, value, planned);
      return { ...answer, outcome: planned.outcome, id: planned.id };
    } catch (error) {
      const refusal = refusalOf(error, COLUMNS_OF[body.kind]);
      return {
        ...answer,
        outcome: 'refused',
        reason: refusal.message,
        ...(refusal.fields ? { fields: refusal.fields } : {}),
      };
    }
  };

  const answers = await inBatches(slice, body.kind === 'families' ? FAMILIES_AT_ONCE : 1, importRow);
  if (furthest) {
    // An engagement is recorded in its own stream by a reactor: the answer waits for it (boundedly),
    // then for the lists to show everything written.
    const upTo =
      body.kind === 'engagements' &&
      (await deps.reactions?.waitFor([ENGAGEMENT_START], furthest, SETTLE_MS, ['TutorEngagementStarted']))
        ? await deps.store.head()
        : furthest;
    await deps.projections.waitFor(upTo, SETTLE_MS);
  }
  return {
    kind: body.kind,
    dryRun: body.dryRun,
    totalRows: rows.length,
    rows: answers,
    summary: importSummaryOf(answers),
  };
}
