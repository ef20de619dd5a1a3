import { calendarDateFrom, columnName, type ImportKind } from '@agency/contracts';
import { type Decider, DomainError } from '@agency/domain';
import { HttpError } from '@agency/platform';
import type { z } from 'zod';
import { type CommandContext, derivedId } from '../pipeline/command-pipeline';
import type { FoldedStream } from '../pipeline/stream-states';

/** One row of the file: its number as the spreadsheet shows it, and its cells by column name. */
export type ImportRow = {
  row: number;
  /** The cell under `column` (trimmed; blank when the file has no such column). */
  cell: (column: string) => string;
  has: (column: string) => boolean;
  /** The row's cells in the file's column order: what its command id derives from. */
  content: string;
};

export function rowsOf(header: string[], records: { row: number; fields: string[] }[]): ImportRow[] {
  const index = new Map<string, number>();
  header.forEach((name, at) => {
    const column = columnName(name);
    if (column && !index.has(column)) index.set(column, at);
  });
  return records.map(({ row, fields }) => ({
    row,
    cell: (column) => {
      const at = index.get(column);
      return at === undefined ? '' : (fields[at] ?? '').trim();
    },
    has: (column) => index.has(column),
    content: JSON.stringify(fields.map((field) => field.trim())),
  }));
}

/** A row the import will not bring in, and why in words; `fields` names the columns at fault. */
export class RowRefused extends Error {
  constructor(
    message: string,
    readonly fields?: Record<string, string>,
  ) {
    super(message);
  }
}

/**
 * The file's column for a path of a command's body (`contact.firstName`, `studentId`): the path
 * itself, a body it lies within, or a column named for its last part; else the path as it is.
 */
export function columnOf(path: string, columns: Record<string, string>): string {
  const last = path.split('.').at(-1) ?? path;
  return (
    columns[path] ??
    Object.entries(columns).find(([prefix]) => path.startsWith(`${prefix}.`))?.[1] ??
    Object.entries(columns).find(([other]) => other === last || other.endsWith(`.${last}`))?.[1] ??
    path
  );
}

/**
 * Why a command's own rules refused a row (its message and fields, named as the file's columns),
 * or the error itself when it is no refusal.
 */
export function refusalOf(error: unknown, columns: Record<string, string> = {}): RowRefused {
  if (error instanceof RowRefused) return error;
  const refused =
    error instanceof DomainError || (error instanceof HttpError && error.statusCode < 500) ? error : undefined;
  if (!refused) throw error;
  if (!refused.fields) return new RowRefused(refused.message);
  const fields: Record<string, string> = {};
  for (const [path, message] of Object.entries(refused.fields)) fields[columnOf(path, columns)] ??= message;
  return new RowRefused(refused.message, fields);
}

/**
 * Parses what a row holds with the route's own contract schema, so a row is refused with the
 * messages a form would show; `columns` names the file's column for each path of the body.
 */
export function parsedWith<S extends z.ZodType>(schema: S, body: unknown, columns: Record<string, string>): z.infer<S> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const fields: Record<string, string> = {};
  for (const issue of parsed.error.issues) fields[columnOf(issue.path.join('.'), columns)] ??= issue.message;
  throw new RowRefused(Object.values(fields).join('; '), fields);
}

/** A date cell in either spreadsheet form, as the contracts read dates; blank stays blank. */
export const dateCell = (row: ImportRow, column: string) => calendarDateFrom(row.cell(column));

/** A percentage cell: `25`, `25%` or `25 %`. */
export const percentCell = (row: ImportRow, column: string) => row.cell(column).replace(/\s*%$/, '');

/** The address lines `address_1` … `address_4`. */
export const addressCells = (row: ImportRow) => [1, 2, 3, 4].map((n) => row.cell(`address_${n}`));

export const CONTACT_COLUMNS: Record<string, string> = {
  firstName: 'first_name',
  lastName: 'last_name',
  email: 'email',
  phone: 'phone',
  address: 'address_1',
  postcode: 'postcode',
  dob: 'dob',
};

/** The phone numbers of a row (`phone`, and `phone_2` when the file has it). */
export const phoneCells = (row: ImportRow, type: string) =>
  ['phone', 'phone_2'].map((column) => ({ type, number: row.cell(column) }));

/**
 * The id a keyed row stands for: the agency's reference names the same family, tutor or
 * engagement in every file and every run (no table to keep). A value that is already an id of the
 * product (a UUID, as its own export writes) is that id.
 */
export function idForKey(kind: ImportKind, key: string): string {
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(key)) return key.toLowerCase();
  return derivedId('import', kind, key.trim().toLowerCase());
}

/** A value's JSON with every object's keys sorted: a stored record's key order is the store's. */
const canonical = (value: unknown): string =>
  Array.isArray(value)
    ? `[${value.map(canonical).join(',')}]`
    : value !== null && typeof value === 'object'
      ? `{${Object.keys(value)
          .sort()
          .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
          .join(',')}}`
      : JSON.stringify(value ?? null);

/** Whether two records say the same. */
export const sameAs = (a: unknown, b: unknown) => canonical(a) === canonical(b);

const sequences = new WeakMap<object, object>();

/**
 * A row's commands on one stream, decided by that stream's own decider one after another and
 * appended together: a row is recorded whole or not at all.
 */
export function inSequence<C, E, S>(decider: Decider<C, E, S>): Decider<C[], E, S> {
  // One per decider: the import's kept states are keyed by the decider object.
  const made = sequences.get(decider);
  if (made) return made as Decider<C[], E, S>;
  const sequence: Decider<C[], E, S> = {
    initialState: decider.initialState,
    evolve: decider.evolve,
    decide: (commands, state, now) => {
      const events: E[] = [];
      let after = state;
      for (const command of commands) {
        const decided = decider.decide(command, after, now);
        events.push(...decided);
        after = decided.reduce(decider.evolve, after);
      }
      return events;
    },
  };
  sequences.set(decider, sequence);
  return sequence;
}

type StoredEvent = { type: string; data: unknown };

/**
 * What a row will do: its outcome and the entity, and (unless unchanged) the commands for one
 * stream, already decided once on the state read (so a dry run refuses what the real run would).
 */
export type RowPlan = {
  outcome: 'create' | 'update' | 'unchanged';
  id: string;
  write?: {
    stream: string;
    /** The revision the plan was decided at: part of the write's command id. */
    revision: number;
    /** The stream as the plan read it: the write decides on it again without reading it again. */
    folded: FoldedStream<unknown>;
    decider: Decider<unknown[], StoredEvent, unknown>;
    commands: unknown[];
    /** Done first (a reservation, a roster brought up to date); `undo` when the write is refused. */
    before?: (context: CommandContext) => Promise<unknown>;
    undo?: () => Promise<void>;
  };
};

/** Decides the commands on `state` once, purely (a refusal throws), and plans their write. */
export function planWrite<C, E, S>(
  decider: Decider<C, E, S>,
  folded: FoldedStream<S>,
  commands: C[],
  stream: string,
  now: Date,
): NonNullable<RowPlan['write']> & { events: E[] } {
  const sequence = inSequence(decider);
  const events = sequence.decide(commands, folded.state, now);
  return {
    stream,
    revision: folded.revision,
    folded: folded as FoldedStream<unknown>,
    decider: sequence as unknown as Decider<unknown[], StoredEvent, unknown>,
    commands,
    events,
  };
}
