import styled from '@emotion/styled';
import dayjs from 'dayjs';
import type { ReactNode } from 'react';
import { type CalendarMonth, MONTH_OPTIONS, shiftMonth, yearOptions } from '../lib/calendar-month';
import { useAgencyToday } from '../lib/current-user';
import { Button } from './button';
import { Select } from './select';

export const FilterBar = styled.div({
  display: 'flex',
  flexWrap: 'wrap',
  alignItems: 'flex-end',
  gap: '1rem',
  marginBottom: '1rem',
  '& > div': { marginBottom: 0 },
});

const Arrow = styled(Button)({ minWidth: '2.75rem', fontSize: '1.1rem' });
export const FilterItem = styled.div<{ wide?: boolean }>(({ wide }) => ({
  minWidth: wide ? '15rem' : '8rem',
  // The field's own bottom margin would lift the control above the arrows.
  '& > div': { marginBottom: 0 },
}));

/**
 * Previous/next month arrows around year and month dropdowns; `children` (a tutor dropdown)
 * follows them on the same bar.
 */
export function MonthFilter({
  id,
  value,
  onChange,
  arrows = true,
  children,
}: {
  /** Prefix of the controls' ids, unique on the page. */
  id: string;
  value: CalendarMonth;
  onChange: (next: CalendarMonth) => void;
  arrows?: boolean;
  children?: ReactNode;
}) {
  const today = dayjs(useAgencyToday());
  return (
    <FilterBar>
      {arrows ? (
        <Arrow
          type="button"
          variant="secondary"
          aria-label="Previous month"
          onClick={() => onChange(shiftMonth(value, -1))}
        >
          ‹
        </Arrow>
      ) : null}
      <FilterItem>
        <Select
          id={`${id}-year`}
          label="Year"
          value={String(value.year)}
          options={yearOptions(today).map((year) => ({ value: String(year), label: String(year) }))}
          onChange={(event) => onChange({ ...value, year: Number(event.target.value) })}
        />
      </FilterItem>
      <FilterItem>
        <Select
          id={`${id}-month`}
          label="Month"
          value={String(value.month)}
          options={MONTH_OPTIONS}
          onChange={(event) => onChange({ ...value, month: Number(event.target.value) })}
        />
      </FilterItem>
      {arrows ? (
        <Arrow type="button" variant="secondary" aria-label="Next month" onClick={() => onChange(shiftMonth(value, 1))}>
          ›
        </Arrow>
      ) : null}
      {children}
    </FilterBar>
  );
}
