import styled from '@emotion/styled';
import { useMachine } from '@xstate/react';
import { type KeyboardEvent, memo, useEffect, useLayoutEffect, useMemo, useRef } from 'react';
import { fromPromise } from 'xstate';
import { formatColumnDate, formatMoney } from '../../../lib/format';
import type { GridCell } from '../api';
import { type CellField, type CellSave, timesheetCellMachine } from '../machines/timesheet-cell-machine';

export type CellCalls = {
  /** Saves and answers this cell's new values (the page keeps the whole week it got back). */
  save: (lesson: CellSave) => Promise<GridCell>;
  /** Loads the week again and answers this cell's values. */
  reload: () => Promise<GridCell>;
};

const CellBox = styled('td', { shouldForwardProp: (prop) => !['locked', 'closed', 'inRow'].includes(prop) })<{
  locked?: boolean;
  closed?: boolean;
  inRow?: boolean;
}>(({ theme, locked, closed, inRow }) => ({
  padding: '0.35rem 0.5rem',
  borderBottom: inRow ? undefined : `1px solid ${theme.colors.border}`,
  borderLeft: inRow ? undefined : `1px solid ${theme.colors.border}`,
  verticalAlign: 'top',
  minWidth: '5.5rem',
  background: closed ? theme.colors.background : locked ? '#eef0f3' : undefined,
  color: locked ? theme.colors.muted : undefined,
  // In a day's row (phones) duration and amount sit side by side, each half the box.
  ...(inRow ? { display: 'grid', gridTemplateColumns: '1fr 1fr', gap: '0 0.5rem', alignItems: 'start' } : {}),
  '& > [role="alert"], & > [role="status"]': inRow ? { gridColumn: '1 / -1' } : {},
}));

/** Below 600 px every value and input is a 44 px tap target (WCAG 2.5.5). */
const PHONE = '@media (max-width: 599.98px)';
const TAP_TARGET = { [PHONE]: { minHeight: '2.75rem' } };

const Value = styled.button(({ theme }) => ({
  display: 'block',
  width: '100%',
  minHeight: '1.9rem',
  ...TAP_TARGET,
  padding: '0.2rem 0.4rem',
  border: '1px solid transparent',
  borderRadius: theme.radius,
  background: 'transparent',
  font: 'inherit',
  textAlign: 'right',
  fontVariantNumeric: 'tabular-nums',
  color: 'inherit',
  cursor: 'pointer',
  '&:hover': { borderColor: theme.colors.border, background: theme.colors.rowHover },
}));

const Static = styled.span({
  display: 'block',
  minHeight: '1.9rem',
  padding: '0.2rem 0.4rem',
  textAlign: 'right',
  fontVariantNumeric: 'tabular-nums',
});

const Input = styled.input<{ invalid: boolean }>(({ theme, invalid }) => ({
  display: 'block',
  width: '100%',
  minHeight: '1.9rem',
  ...TAP_TARGET,
  padding: '0.2rem 0.4rem',
  font: 'inherit',
  textAlign: 'right',
  border: `1px solid ${invalid ? theme.colors.danger : theme.colors.primary}`,
  borderRadius: theme.radius,
}));

const Message = styled.span<{ kind: 'error' | 'notice' }>(({ theme, kind }) => ({
  display: 'block',
  fontSize: '0.8rem',
  color: kind === 'error' ? theme.colors.danger : theme.colors.warningText,
}));

const RetryLink = styled.button(({ theme }) => ({
  border: 'none',
  background: 'none',
  padding: 0,
  font: 'inherit',
  color: theme.colors.primary,
  textDecoration: 'underline',
  cursor: 'pointer',
  [PHONE]: { minHeight: '2.75rem', minWidth: '2.75rem' },
}));

const hours = (duration: number) => `${duration} h`;

/** What the grid reads as a value being typed: digits, a decimal point, the colon of 1:30. */
const STARTS_A_VALUE = /^[0-9.:]$/;

/** The id of the grid's sentence on the forms a duration may take (each duration input points to it). */
export const DURATION_FORMS_ID = 'duration-forms';

type Direction = 'next' | 'previous';

/**
 * The editable cell after (or before) the one holding `from`, in the grid's reading order (a
 * student's week, then the next student's; on a phone, a day's students, then the next day), and
 * its button for `field` (else its first): where Tab and Enter go once a cell is saved.
 */
function neighbourOf(from: HTMLElement, direction: Direction, field: CellField): HTMLElement | undefined {
  const own = from.closest<HTMLElement>('[data-grid-cell]');
  const grid = from.closest<HTMLElement>('[data-lesson-grid]');
  if (!own || !grid) return undefined;
  const cells = [...grid.querySelectorAll<HTMLElement>('[data-grid-cell]')];
  const target = cells[cells.indexOf(own) + (direction === 'next' ? 1 : -1)];
  return (
    target?.querySelector<HTMLElement>(`[data-field="${field}"]`) ??
    target?.querySelector<HTMLElement>('button, input') ??
    undefined
  );
}

type CellProps = { cell: GridCell; studentName: string; calls: CellCalls; inRow?: boolean };

/** Every save answers the whole week as new objects: a cell whose values did not change is the same cell. */
const sameCell = (before: GridCell, after: GridCell) => {
  const keys = Object.keys(after) as (keyof GridCell)[];
  return keys.length === Object.keys(before).length && keys.every((key) => before[key] === after[key]);
};

/**
 * One date of one student's row: the cell's lifecycle is the timesheet cell machine. `inRow`
 * draws it as a box in a day's row (phones) instead of a table cell, with the same machine,
 * keys and saves. Drawn again only when its own values change: a save in a grid of 30 students
 * (210 cells) redraws the cells it changed, and typing redraws only the cell typed in.
 */
export const LessonCell = memo(
  LessonCellBox,
  (before, after) =>
    before.calls === after.calls &&
    before.studentName === after.studentName &&
    before.inRow === after.inRow &&
    sameCell(before.cell, after.cell),
);

function LessonCellBox({ cell, studentName, calls, inRow = false }: CellProps) {
  const box = inRow ? ('div' as const) : ('td' as const);
  const callsRef = useRef(calls);
  callsRef.current = calls;
  const machine = useMemo(
    () =>
      timesheetCellMachine.provide({
        actors: {
          saveCell: fromPromise<GridCell, CellSave>(({ input }) => callsRef.current.save(input)),
          reloadCell: fromPromise<GridCell, { date: string }>(() => callsRef.current.reload()),
        },
      }),
    [],
  );
  const [snapshot, send, actor] = useMachine(machine, { input: { cell } });
  const { context } = snapshot;
  const shownCell = context.cell;

  const cellKey = JSON.stringify(cell);
  useEffect(() => {
    send({ type: 'cell.sync', cell: JSON.parse(cellKey) as GridCell });
  }, [cellKey, send]);

  // After Escape (or Enter on the grid's last cell) the focus comes back to the value that was
  // edited, so typing a week by keyboard never loses its place.
  const refocus = useRef<CellField | null>(null);
  const buttons = { duration: useRef<HTMLButtonElement>(null), amount: useRef<HTMLButtonElement>(null) };
  const input = useRef<HTMLInputElement>(null);
  const editing = snapshot.matches('editing');
  useEffect(() => {
    if (editing || !refocus.current) return;
    (buttons[refocus.current].current ?? buttons.duration.current)?.focus();
    refocus.current = null;
  });
  // Editing takes the focus: when it starts, and when a refused save comes back to it after Tab
  // moved on, unless another cell is being typed in by then. Before the next key press is handled
  // (a layout effect), so a number typed fast on a focused value loses no digit.
  useLayoutEffect(() => {
    if (!editing) return;
    const active = document.activeElement;
    if (active instanceof HTMLInputElement && active !== input.current) return;
    input.current?.focus();
  }, [editing]);

  const day = formatColumnDate(shownCell.date);
  const inputId = `cell-${studentName}-${shownCell.date}`.replace(/\W+/g, '-');
  /** Saves; once the value has left editing (sent, or unchanged), the focus goes to the neighbouring cell. */
  const commitAndMove = (event: KeyboardEvent<HTMLInputElement>, direction: Direction) => {
    const target = neighbourOf(event.currentTarget, direction, context.field);
    // With no cell to go to, Tab leaves the grid as it would anywhere (Enter stays on this cell).
    if (!target && event.key === 'Tab') {
      send({ type: 'cell.commit' });
      return;
    }
    event.preventDefault();
    send({ type: 'cell.commit' });
    if (actor.getSnapshot().matches('editing')) return;
    if (target) target.focus();
    else refocus.current = context.field;
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter') commitAndMove(event, 'next');
    else if (event.key === 'Tab') commitAndMove(event, event.shiftKey ? 'previous' : 'next');
    else if (event.key === 'Escape') {
      event.preventDefault();
      refocus.current = context.field;
      send({ type: 'cell.cancel' });
    }
  };
  /** A digit typed on a focused value starts editing it with that digit, as a spreadsheet does. */
  const typeOver = (event: KeyboardEvent<HTMLButtonElement>, field: CellField) => {
    if (event.ctrlKey || event.metaKey || event.altKey || !STARTS_A_VALUE.test(event.key)) return;
    event.preventDefault();
    send({ type: 'cell.edit', field, typed: event.key });
  };

  if (!shownCell.open && !shownCell.id) {
    return (
      <CellBox as={box} inRow={inRow} closed>
        <span className="visually-hidden">No engagement on this date</span>
      </CellBox>
    );
  }

  if (snapshot.matches('locked')) {
    return (
      <CellBox as={box} inRow={inRow} locked data-state="locked">
        <span className="visually-hidden">Locked: </span>
        <Static>{shownCell.id ? hours(shownCell.duration) : ''}</Static>
        <Static>{shownCell.id ? formatMoney(shownCell.amount) : ''}</Static>
      </CellBox>
    );
  }

  const field = (name: CellField) => {
    const label = name === 'duration' ? 'Duration' : 'Amount';
    if (editing && context.field === name) {
      return (
        <>
          <Input
            ref={input}
            id={inputId}
            // A duration may be typed as 1:30 or 90m: a full keyboard, not the decimal pad.
            inputMode={name === 'duration' ? 'text' : 'decimal'}
            autoComplete="off"
            aria-label={`${label} for ${studentName} on ${day}`}
            aria-invalid={context.error ? true : undefined}
            aria-describedby={
              [context.error ? `${inputId}-error` : '', name === 'duration' ? DURATION_FORMS_ID : '']
                .filter(Boolean)
                .join(' ') || undefined
            }
            invalid={Boolean(context.error)}
            value={context.draft}
            onFocus={(event) => {
              const end = event.target.value.length;
              if (context.typedOver) event.target.setSelectionRange(end, end);
              else event.target.select();
            }}
            onChange={(event) => send({ type: 'cell.change', value: event.target.value })}
            onKeyDown={onKeyDown}
            onBlur={() => send({ type: 'cell.commit' })}
          />
          {context.error ? (
            <Message kind="error" id={`${inputId}-error`} role="alert">
              {context.error}
            </Message>
          ) : null}
        </>
      );
    }
    if (!shownCell.id && name === 'amount') return null;
    const saving = snapshot.matches('saving') && context.field === name;
    const text = saving
      ? context.draft
      : name === 'duration'
        ? shownCell.id
          ? hours(shownCell.duration)
          : '–'
        : formatMoney(shownCell.amount);
    return (
      <Value
        ref={buttons[name]}
        type="button"
        data-field={name}
        aria-label={
          shownCell.id
            ? `${label} for ${studentName} on ${day}: ${text}. Edit`
            : `Add a lesson for ${studentName} on ${day}`
        }
        aria-busy={saving || undefined}
        onClick={() => send({ type: 'cell.edit', field: name })}
        onKeyDown={(event) => typeOver(event, name)}
      >
        {text}
      </Value>
    );
  };

  return (
    <CellBox as={box} inRow={inRow} data-state={String(snapshot.value)} data-grid-cell="">
      {field('duration')}
      {field('amount')}
      {snapshot.matches('saving') ? <span className="visually-hidden">Saving…</span> : null}
      {snapshot.matches('reloading') ? <Message kind="notice">Reloading…</Message> : null}
      {snapshot.matches('error') ? (
        <Message kind="error" role="alert">
          {context.error}{' '}
          <RetryLink type="button" onClick={() => send({ type: 'cell.retry' })}>
            Retry
          </RetryLink>
        </Message>
      ) : null}
      {context.notice && snapshot.matches('display') ? (
        <Message kind="notice" role="status">
          {context.notice}
        </Message>
      ) : null}
    </CellBox>
  );
}
