import type { GridCell } from '@agency/contracts';
import { readDuration } from '@agency/contracts/commands/lesson-commands';
import { assign, fromPromise, setup } from 'xstate';

export type CellField = 'duration' | 'amount';

/** What a save sends: the lesson's id when it exists, the typed field, and the duration it keeps. */
export type CellSave = { id?: string; date: string; duration: string; amount?: string };

export type CellFailure = { status: number; code?: string; message: string };

export type TimesheetCellEvent =
  /** `typed`: the key that started editing on a focused cell: the draft begins with it, in place of the value. */
  | { type: 'cell.edit'; field: CellField; typed?: string }
  | { type: 'cell.change'; value: string }
  | { type: 'cell.commit' }
  | { type: 'cell.cancel' }
  | { type: 'cell.retry' }
  /** Newer values from the page (another cell's save answered the whole week). */
  | { type: 'cell.sync'; cell: GridCell };

type Context = {
  cell: GridCell;
  field: CellField;
  draft: string;
  /** The draft began with a typed key (the input must not select it, or the next key would replace it). */
  typedOver: boolean;
  /** Why the last save was refused (shown beside the input). */
  error: string | null;
  /** Said after a reload: someone else changed this cell at the same time. */
  notice: string | null;
};

const shown = (cell: GridCell, field: CellField) => {
  // A new lesson starts as one hour at the rate of that day (spec §3).
  if (!cell.id) return field === 'duration' ? '1' : (cell.rate ?? 0).toFixed(2);
  return field === 'duration' ? String(cell.duration) : cell.amount.toFixed(2);
};

/** Hundredths of an hour for a typed duration (blank is 0: it removes the lesson), or why it cannot be read. */
const draftDuration = (draft: string) => (draft.trim() === '' ? { hundredths: 0 } : readDuration(draft));

/** What to send for the typed value: the amount only when it was the amount that was typed. */
export function cellSave(cell: GridCell, field: CellField, draft: string): CellSave {
  const base = { ...(cell.id ? { id: cell.id } : {}), date: cell.date };
  if (field === 'duration') return { ...base, duration: draft.trim() === '' ? '0' : draft.trim() };
  return { ...base, duration: cell.id ? String(cell.duration) : '1', amount: draft.trim() };
}

/**
 * One cell of the lesson entry grid: display → editing → saving → display, or locked once the
 * month is invoiced. A duration the grid cannot read (`readDuration`, the server's own reading)
 * stays in editing with the reason and is not sent. A refused save goes back to editing with the reason; a 409 (someone else
 * saved this cell, or the month was locked meanwhile) reloads the cell from the server.
 * `saveCell` and `reloadCell` are provided by the page and answer the cell's new values.
 */
export const timesheetCellMachine = setup({
  types: {
    context: {} as Context,
    events: {} as TimesheetCellEvent,
    input: {} as { cell: GridCell },
  },
  actors: {
    saveCell: fromPromise<GridCell, CellSave>(async () => {
      throw new Error('saveCell is provided by the page');
    }),
    reloadCell: fromPromise<GridCell, { date: string }>(async () => {
      throw new Error('reloadCell is provided by the page');
    }),
  },
  guards: {
    isLocked: ({ context }) => context.cell.locked,
    editable: ({ context }) => !context.cell.locked && context.cell.open,
    // The grid reads a duration as the server will (1:30, 90m): what it cannot read is refused here, unsent.
    unreadable: ({ context }) => context.field === 'duration' && 'refused' in draftDuration(context.draft),
    unchanged: ({ context }) => {
      if (!context.cell.id) return false;
      if (context.field === 'amount') return context.draft.trim() === shown(context.cell, 'amount');
      const reading = draftDuration(context.draft);
      return 'hundredths' in reading && reading.hundredths === Math.round(context.cell.duration * 100);
    },
    nothingToRemove: ({ context }) => {
      if (context.cell.id || context.field !== 'duration') return false;
      const reading = draftDuration(context.draft);
      return 'hundredths' in reading && reading.hundredths === 0;
    },
    // Not "still in progress": that save is the user's own, so they stay editing and save again (the same command id).
    conflict: ({ event }) => {
      const error = (event as { error?: CellFailure }).error;
      return error?.status === 409 && error.code !== 'command_in_progress';
    },
  },
  actions: {
    startEditing: assign(({ context, event }) => {
      const field = event.type === 'cell.edit' ? event.field : context.field;
      const typed = event.type === 'cell.edit' ? event.typed : undefined;
      return {
        field,
        draft: typed ?? shown(context.cell, field),
        typedOver: typed !== undefined,
        error: null,
        notice: null,
      };
    }),
    misread: assign({
      error: ({ context }) => {
        const reading = draftDuration(context.draft);
        return 'refused' in reading ? reading.refused : null;
      },
    }),
    type: assign({ draft: ({ context, event }) => (event.type === 'cell.change' ? event.value : context.draft) }),
    sync: assign({ cell: ({ context, event }) => (event.type === 'cell.sync' ? event.cell : context.cell) }),
    took: assign({ cell: ({ event }) => (event as unknown as { output: GridCell }).output, error: null }),
    refused: assign({
      error: ({ event }) => (event as { error?: CellFailure }).error?.message ?? 'The lesson could not be saved.',
    }),
    reloaded: assign({
      cell: ({ event }) => (event as unknown as { output: GridCell }).output,
      notice: 'Someone else changed this at the same time; this is the latest.',
    }),
  },
}).createMachine({
  id: 'timesheetCell',
  context: ({ input }) => ({
    cell: input.cell,
    field: 'duration',
    draft: '',
    typedOver: false,
    error: null,
    notice: null,
  }),
  initial: 'display',
  states: {
    display: {
      always: { guard: 'isLocked', target: 'locked' },
      on: {
        'cell.edit': { guard: 'editable', target: 'editing', actions: 'startEditing' },
        'cell.sync': { target: 'display', reenter: true, actions: 'sync' },
      },
    },
    locked: {
      on: { 'cell.sync': { target: 'display', actions: 'sync' } },
    },
    editing: {
      on: {
        'cell.change': { actions: 'type' },
        'cell.commit': [
          { guard: 'unreadable', actions: 'misread' },
          { guard: 'unchanged', target: 'display' },
          { guard: 'nothingToRemove', target: 'display' },
          { target: 'saving' },
        ],
        'cell.cancel': { target: 'display', actions: assign({ error: null }) },
      },
    },
    saving: {
      invoke: {
        src: 'saveCell',
        input: ({ context }) => cellSave(context.cell, context.field, context.draft),
        onDone: { target: 'display', actions: 'took' },
        onError: [
          { guard: 'conflict', target: 'reloading' },
          { target: 'editing', actions: 'refused' },
        ],
      },
    },
    reloading: {
      invoke: {
        src: 'reloadCell',
        input: ({ context }) => ({ date: context.cell.date }),
        onDone: { target: 'display', actions: 'reloaded' },
        onError: { target: 'error', actions: 'refused' },
      },
    },
    error: {
      on: {
        'cell.retry': { target: 'reloading' },
        'cell.cancel': { target: 'display', actions: assign({ error: null }) },
      },
    },
  },
});
