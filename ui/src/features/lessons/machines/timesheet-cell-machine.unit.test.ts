import type { GridCell } from '@agency/contracts';
import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, waitFor } from 'xstate';
import { type CellSave, cellSave, timesheetCellMachine } from './timesheet-cell-machine';

const empty: GridCell = {
  date: '2026-03-02',
  duration: 0,
  amount: 0,
  amountEdited: false,
  locked: false,
  open: true,
  rate: 40,
};
const recorded: GridCell = { ...empty, id: 'e1.2026-03-02', duration: 1.5, amount: 60 };

function cellWith(cell: GridCell, save: (input: CellSave) => Promise<GridCell>, reload = async () => recorded) {
  const saved: CellSave[] = [];
  const machine = timesheetCellMachine.provide({
    actors: {
      saveCell: fromPromise<GridCell, CellSave>(({ input }) => {
        saved.push(input);
        return save(input);
      }),
      reloadCell: fromPromise<GridCell, { date: string }>(reload),
    },
  });
  return { actor: createActor(machine, { input: { cell } }).start(), saved };
}

const conflict = Object.assign(new Error('Someone else has just recorded a lesson.'), { status: 409 });

describe('a timesheet cell', () => {
  it('starts a new lesson as one hour at the rate of the day, and saves it on commit', async () => {
    const { actor, saved } = cellWith(empty, async () => ({ ...recorded, duration: 1, amount: 40 }));
    actor.send({ type: 'cell.edit', field: 'duration' });
    expect(actor.getSnapshot().value).toBe('editing');
    expect(actor.getSnapshot().context.draft).toBe('1');
    actor.send({ type: 'cell.commit' });
    expect(actor.getSnapshot().value).toBe('saving');
    await waitFor(actor, (s) => s.matches('display'));
    expect(saved).toEqual([{ date: '2026-03-02', duration: '1' }]);
    expect(actor.getSnapshot().context.cell).toMatchObject({ id: 'e1.2026-03-02', duration: 1, amount: 40 });
  });

  it('sends the typed amount with the duration it keeps; a typed duration alone lets the server price it', () => {
    expect(cellSave(recorded, 'amount', ' 55.00 ')).toEqual({
      id: 'e1.2026-03-02',
      date: '2026-03-02',
      duration: '1.5',
      amount: '55.00',
    });
    expect(cellSave(recorded, 'duration', '')).toEqual({ id: 'e1.2026-03-02', date: '2026-03-02', duration: '0' });
    expect(cellSave(empty, 'amount', '35')).toEqual({ date: '2026-03-02', duration: '1', amount: '35' });
  });

  it('goes back to display without saving when nothing changed, or on cancel', () => {
    const { actor, saved } = cellWith(recorded, async () => recorded);
    actor.send({ type: 'cell.edit', field: 'amount' });
    expect(actor.getSnapshot().context.draft).toBe('60.00');
    actor.send({ type: 'cell.commit' });
    expect(actor.getSnapshot().value).toBe('display');
    actor.send({ type: 'cell.edit', field: 'duration' });
    actor.send({ type: 'cell.change', value: '3' });
    actor.send({ type: 'cell.cancel' });
    expect(actor.getSnapshot().value).toBe('display');
    const { actor: blank } = cellWith(empty, async () => recorded);
    blank.send({ type: 'cell.edit', field: 'duration' });
    blank.send({ type: 'cell.change', value: '0' });
    blank.send({ type: 'cell.commit' });
    expect(blank.getSnapshot().value).toBe('display');
    expect(saved).toEqual([]);
  });

  it('reads a duration as the server does: 1:30 is the lesson it has, 0:00 adds nothing', () => {
    const { actor, saved } = cellWith(recorded, async () => recorded);
    actor.send({ type: 'cell.edit', field: 'duration' });
    actor.send({ type: 'cell.change', value: '1:30' });
    actor.send({ type: 'cell.commit' });
    expect(actor.getSnapshot().value).toBe('display');
    const { actor: blank } = cellWith(empty, async () => recorded);
    blank.send({ type: 'cell.edit', field: 'duration' });
    blank.send({ type: 'cell.change', value: '0:00' });
    blank.send({ type: 'cell.commit' });
    expect(blank.getSnapshot().value).toBe('display');
    expect(saved).toEqual([]);
  });

  it('keeps a duration it cannot read in editing, with the reason, and sends nothing', () => {
    const { actor, saved } = cellWith(empty, async () => recorded);
    actor.send({ type: 'cell.edit', field: 'duration' });
    actor.send({ type: 'cell.change', value: '90' });
    actor.send({ type: 'cell.commit' });
    expect(actor.getSnapshot().value).toBe('editing');
    expect(actor.getSnapshot().context.error).toBe('Duration cannot be more than 24 hours: for 90 minutes, write 90m');
    actor.send({ type: 'cell.change', value: '90m' });
    actor.send({ type: 'cell.commit' });
    expect(actor.getSnapshot().value).toBe('saving');
    expect(saved).toEqual([{ date: '2026-03-02', duration: '90m' }]);
  });

  it('starts editing with the key typed on a focused cell, in place of its value', () => {
    const { actor } = cellWith(recorded, async () => recorded);
    actor.send({ type: 'cell.edit', field: 'duration', typed: '2' });
    expect(actor.getSnapshot().context).toMatchObject({ draft: '2', typedOver: true, field: 'duration' });
    actor.send({ type: 'cell.cancel' });
    actor.send({ type: 'cell.edit', field: 'amount' });
    expect(actor.getSnapshot().context).toMatchObject({ draft: '60.00', typedOver: false });
  });

  it('returns to editing with the reason when the server refuses the value', async () => {
    const refusal = Object.assign(new Error('No more than 12 hours of lessons a day with one student.'), {
      status: 400,
    });
    const { actor } = cellWith(recorded, () => Promise.reject(refusal));
    actor.send({ type: 'cell.edit', field: 'duration' });
    actor.send({ type: 'cell.change', value: '13' });
    actor.send({ type: 'cell.commit' });
    await waitFor(actor, (s) => s.matches('editing'));
    expect(actor.getSnapshot().context).toMatchObject({
      draft: '13',
      error: 'No more than 12 hours of lessons a day with one student.',
    });
  });

  it('stays editing when its own earlier save is still in progress, so saving again retries that save', async () => {
    const inProgress = Object.assign(new Error('This action is still being processed. Please try again.'), {
      status: 409,
      code: 'command_in_progress',
    });
    const { actor, saved } = cellWith(recorded, () => Promise.reject(inProgress));
    actor.send({ type: 'cell.edit', field: 'duration' });
    actor.send({ type: 'cell.change', value: '2' });
    actor.send({ type: 'cell.commit' });
    await waitFor(actor, (s) => s.matches('editing'));
    expect(actor.getSnapshot().context).toMatchObject({ draft: '2', notice: null, error: inProgress.message });
    expect(saved).toHaveLength(1);
  });

  it('reloads the cell on a 409 and says someone else changed it', async () => {
    const theirs = { ...recorded, duration: 2, amount: 80 };
    const { actor } = cellWith(
      empty,
      () => Promise.reject(conflict),
      async () => theirs,
    );
    actor.send({ type: 'cell.edit', field: 'duration' });
    actor.send({ type: 'cell.commit' });
    await waitFor(actor, (s) => s.matches('display'));
    expect(actor.getSnapshot().context.cell).toEqual(theirs);
    expect(actor.getSnapshot().context.notice).toMatch(/Someone else changed this/);
  });

  it('lands in locked when the reload shows the month was invoiced meanwhile, and cannot be edited', async () => {
    const { actor } = cellWith(
      recorded,
      () => Promise.reject(conflict),
      async () => ({ ...recorded, locked: true }),
    );
    actor.send({ type: 'cell.edit', field: 'duration' });
    actor.send({ type: 'cell.change', value: '2' });
    actor.send({ type: 'cell.commit' });
    await waitFor(actor, (s) => s.matches('locked'));
    actor.send({ type: 'cell.edit', field: 'duration' });
    expect(actor.getSnapshot().value).toBe('locked');
  });

  it('offers a retry when the reload itself fails', async () => {
    let reloads = 0;
    const { actor } = cellWith(
      recorded,
      () => Promise.reject(conflict),
      async () => {
        reloads++;
        if (reloads === 1) throw new Error('The server could not be reached.');
        return recorded;
      },
    );
    actor.send({ type: 'cell.edit', field: 'duration' });
    actor.send({ type: 'cell.change', value: '2' });
    actor.send({ type: 'cell.commit' });
    await waitFor(actor, (s) => s.matches('error'));
    actor.send({ type: 'cell.retry' });
    await waitFor(actor, (s) => s.matches('display'));
    expect(reloads).toBe(2);
  });

  it('is locked from the start in an invoiced month, and never editable outside the engagement', () => {
    expect(cellWith({ ...recorded, locked: true }, async () => recorded).actor.getSnapshot().value).toBe('locked');
    const { actor } = cellWith({ ...empty, open: false, rate: null }, async () => recorded);
    actor.send({ type: 'cell.edit', field: 'duration' });
    expect(actor.getSnapshot().value).toBe('display');
  });

  it('takes newer values from the page while displayed, and locks when they say so', () => {
    const { actor } = cellWith(empty, async () => recorded);
    actor.send({ type: 'cell.sync', cell: recorded });
    expect(actor.getSnapshot().context.cell).toEqual(recorded);
    actor.send({ type: 'cell.sync', cell: { ...recorded, locked: true } });
    expect(actor.getSnapshot().value).toBe('locked');
  });
});
