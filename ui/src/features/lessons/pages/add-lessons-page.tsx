import { DURATION_FORMS } from '@agency/contracts/commands/lesson-commands';
import { calendarMonth } from '@agency/contracts/values';
import { addDays, mondayOf, monthBounds, weekInMonth } from '@agency/domain/timesheet/week';
import styled from '@emotion/styled';
import dayjs from 'dayjs';
import { useState } from 'react';
import { useNavigate, useParams, useSearchParams } from 'react-router-dom';
import { Button, ButtonRow } from '../../../components/button';
import { LoadState } from '../../../components/load-state';
import { PageHeading } from '../../../components/page-heading';
import { EmptyRow, Table, TableWrap, Th } from '../../../components/table';
import { useCommandIds } from '../../../lib/command-id';
import { useAgencyToday, useCurrentUser } from '../../../lib/current-user';
import { formatColumnDate, formatDate } from '../../../lib/format';
import { useLoader } from '../../../lib/use-loader';
import { useNarrowScreen } from '../../../lib/use-narrow-screen';
import { fetchTimesheet, type GridCell, saveLesson, type Timesheet, type WeekQuery } from '../api';
import { type CellCalls, DURATION_FORMS_ID, LessonCell } from '../components/lesson-cell';

/** Below 600 px the page's buttons are 44 px tap targets (WCAG 2.5.5). */
const PHONE = '@media (max-width: 599.98px)';
const Page = styled.div({ [PHONE]: { '& button': { minHeight: '2.75rem' } } });
const Week = styled.div({
  display: 'flex',
  flexWrap: 'wrap',
  alignItems: 'center',
  gap: '0.75rem',
  marginBottom: '1rem',
});
const WeekTitle = styled.h2({ fontSize: '1.1rem', margin: 0 });
const StudentTh = styled.th(({ theme }) => ({
  textAlign: 'left',
  padding: '0.5rem 1rem',
  borderBottom: `1px solid ${theme.colors.border}`,
  whiteSpace: 'nowrap',
}));
const Notice = styled.p(({ theme }) => ({
  background: theme.colors.warningBackground,
  color: theme.colors.warningText,
  borderRadius: theme.radius,
  padding: '0.75rem 1rem',
}));
const DateTh = styled(Th, { shouldForwardProp: (prop) => prop !== 'outside' })<{ outside?: boolean }>(
  ({ theme, outside }) => ({
    whiteSpace: 'normal',
    textAlign: 'right',
    padding: '0.6rem 0.5rem',
    color: outside ? theme.colors.muted : undefined,
    background: outside ? theme.colors.background : undefined,
    fontWeight: outside ? 400 : undefined,
  }),
);
/** A day of the week outside the month: on the other month's timesheet, greyed and not editable. */
const OutsideTd = styled.td(({ theme }) => ({
  background: theme.colors.background,
  borderBottom: `1px solid ${theme.colors.border}`,
  borderLeft: `1px solid ${theme.colors.border}`,
  minWidth: '5.5rem',
}));
const Hint = styled.p(({ theme }) => ({ color: theme.colors.muted, fontSize: '0.9rem' }));
const Day = styled.section(({ theme }) => ({
  borderTop: `1px solid ${theme.colors.border}`,
  padding: '0.5rem 0',
  '& h3': { fontSize: '1rem', margin: '0 0 0.25rem' },
}));
const DayRow = styled.div({
  display: 'grid',
  gridTemplateColumns: 'minmax(0, 1fr) minmax(0, 1.4fr)',
  alignItems: 'center',
  gap: '0.5rem',
  '& > span': { overflowWrap: 'anywhere' },
});
const NoStudents = styled.p(({ theme }) => ({ color: theme.colors.muted, fontSize: '0.9rem', margin: 0 }));
const OutsideDay = styled(Day)(({ theme }) => ({ color: theme.colors.muted, '& h3': { fontWeight: 400 } }));

/** The seven dates of the Monday-to-Sunday week holding `date` (spec §9: weeks start on Monday, 7 days). */
const weekOf = (date: string) => Array.from({ length: 7 }, (_, index) => addDays(mondayOf(date), index));

/** The week shown first: this week when the month is the current one, else the month's first week. */
const firstWeek = (month: string, today: string): string =>
  today.startsWith(month) ? today : monthBounds(month).first;

const cellOf = (grid: Timesheet, engagementId: string, date: string): GridCell | undefined =>
  grid.students.find((row) => row.engagementId === engagementId)?.lessons.find((cell) => cell.date === date);

const loadWeek = (query: WeekQuery, signal: AbortSignal) => fetchTimesheet(query, signal);

/** lessons/add and lessons/add/{tutorId}?month=YYYY-MM: the weekly lesson entry grid. */
export function AddLessonsPage() {
  const user = useCurrentUser();
  const today = useAgencyToday();
  const navigate = useNavigate();
  const params = useParams();
  const [search] = useSearchParams();
  const asked = search.get('month') ?? '';
  const month = calendarMonth.safeParse(asked).success ? asked : today.slice(0, 7);
  // Spec §5: an admin adds lessons for a chosen tutor; a tutor or partner for themselves.
  const tutorId = params.tutorId ?? (user.role === 'admin' ? undefined : user.tutorId);
  const [day, setDay] = useState(() => firstWeek(month, today));
  const week = weekInMonth(day.startsWith(month) ? day : firstWeek(month, today), month);
  const bounds = monthBounds(month);
  const [year, monthNumber] = month.split('-').map(Number);
  const back = () =>
    navigate(
      `/lessons?year=${year}&month=${monthNumber}${params.tutorId ? `&tutorId=${encodeURIComponent(params.tutorId)}` : ''}`,
    );

  return (
    <Page>
      <PageHeading title="Lessons" />
      {tutorId ? (
        <WeekGrid
          query={{ tutorId, month, from: week.from, to: week.to }}
          onPrevious={week.from > bounds.first ? () => setDay(addDays(week.from, -1)) : undefined}
          onNext={week.to < bounds.last ? () => setDay(addDays(week.to, 1)) : undefined}
        />
      ) : (
        <Notice role="status">Choose a tutor on the Lessons page to add lessons for them.</Notice>
      )}
      <ButtonRow>
        <Button type="button" onClick={back}>
          Done
        </Button>
      </ButtonRow>
    </Page>
  );
}

function WeekGrid({ query, onPrevious, onNext }: { query: WeekQuery; onPrevious?: () => void; onNext?: () => void }) {
  const { state, retry } = useLoader(loadWeek, query);
  return (
    <>
      <Week>
        <Button type="button" variant="secondary" onClick={onPrevious} disabled={!onPrevious}>
          ‹ Previous week
        </Button>
        <WeekTitle>
          {formatDate(mondayOf(query.from))} – {formatDate(addDays(mondayOf(query.from), 6))}
        </WeekTitle>
        <Button type="button" variant="secondary" onClick={onNext} disabled={!onNext}>
          Next week ›
        </Button>
      </Week>
      <LoadState state={state} onRetry={retry}>
        {(loaded) => <WeekTable key={JSON.stringify(query)} initial={loaded} query={query} />}
      </LoadState>
    </>
  );
}

function WeekTable({ initial, query }: { initial: Timesheet; query: WeekQuery }) {
  // Every save answers the whole week; keeping it shows other people's changes as they land.
  const [grid, setGrid] = useState(initial);
  // A cell saved again with the same value after an unknown outcome is the same action: same command id.
  const commandIds = useCommandIds();
  const narrow = useNarrowScreen();
  // One calls object per cell for the table's life (its query is fixed: the table is keyed by it),
  // so a cell whose values did not change is not drawn again after a save.
  const [callsByCell] = useState(() => new Map<string, CellCalls>());
  const callsFor = (engagementId: string, date: string): CellCalls => {
    const key = `${engagementId} ${date}`;
    const known = callsByCell.get(key);
    if (known) return known;
    const pick = (answer: Timesheet) => {
      setGrid(answer);
      const cell = cellOf(answer, engagementId, date);
      if (!cell) throw new Error('This student is no longer on the timesheet.');
      return cell;
    };
    const calls: CellCalls = {
      save: async (lesson) => {
        const action = JSON.stringify({ engagementId, ...lesson });
        try {
          const answer = await saveLesson(query, { ...lesson, engagementId }, commandIds.idFor(action));
          commandIds.done(action);
          return pick(answer);
        } catch (error) {
          commandIds.done(action, error);
          throw error;
        }
      },
      reload: async () => pick(await fetchTimesheet(query)),
    };
    callsByCell.set(key, calls);
    return calls;
  };
  // The whole week is shown; its days in another month are that month's, greyed here (spec §9).
  const days = weekOf(query.from);
  const monthName = dayjs(`${query.month}-01`).format('MMMM');
  const inMonth = (date: string) => date.startsWith(query.month);
  return (
    <div data-lesson-grid="">
      {grid.locked ? <Notice role="status">This month has been invoiced: its lessons are locked.</Notice> : null}
      {narrow ? (
        <WeekByDay grid={grid} days={days} monthName={monthName} callsFor={callsFor} />
      ) : (
        <TableWrap>
          <Table>
            <caption className="visually-hidden">Lessons of the week by student and date</caption>
            <thead>
              <tr>
                <Th scope="col">Student</Th>
                {days.map((date) =>
                  inMonth(date) ? (
                    <DateTh scope="col" key={date}>
                      {formatColumnDate(date)}
                    </DateTh>
                  ) : (
                    <DateTh scope="col" key={date} outside>
                      {formatColumnDate(date)}
                      <span className="visually-hidden"> (not in {monthName})</span>
                    </DateTh>
                  ),
                )}
              </tr>
            </thead>
            <tbody>
              {grid.students.length === 0 ? (
                <tr>
                  <EmptyRow colSpan={days.length + 1}>No students have an engagement in this week.</EmptyRow>
                </tr>
              ) : (
                grid.students.map((row) => (
                  <tr key={row.engagementId}>
                    <StudentTh scope="row">{row.studentName}</StudentTh>
                    {days.map((date) => {
                      const cell = row.lessons.find((lesson) => lesson.date === date);
                      return cell ? (
                        <LessonCell
                          key={date}
                          cell={cell}
                          studentName={row.studentName}
                          calls={callsFor(row.engagementId, date)}
                        />
                      ) : (
                        <OutsideTd key={date}>
                          <span className="visually-hidden">Not in {monthName}</span>
                        </OutsideTd>
                      );
                    })}
                  </tr>
                ))
              )}
            </tbody>
          </Table>
        </TableWrap>
      )}
      <Hint id={DURATION_FORMS_ID}>{DURATION_FORMS}</Hint>
      <Hint>
        Choose a duration or an amount, or type a number on it, to change it. Enter or Tab saves and goes on to the next
        day (Shift+Tab to the day before), leaving the cell saves, Escape cancels. A new lesson starts as one hour at
        the student's rate; a duration of 0 removes the lesson. Days of the week outside {monthName} are greyed: they
        are on that month's timesheet.
      </Hint>
    </div>
  );
}

/**
 * Below 600 px: the week as one section a day (a day outside the month greyed and empty), each student a row (student, duration, amount),
 * with the grid's cells (machine, keys and saves); a student without an engagement that day is left out.
 */
function WeekByDay({
  grid,
  days,
  monthName,
  callsFor,
}: {
  grid: Timesheet;
  days: string[];
  monthName: string;
  callsFor: (engagementId: string, date: string) => CellCalls;
}) {
  return (
    <div>
      {days.map((date) => {
        if (!grid.dates.includes(date)) {
          return (
            <OutsideDay key={date} data-testid={`day-${date}`} aria-labelledby={`day-${date}-heading`}>
              <h3 id={`day-${date}-heading`}>{formatColumnDate(date)}</h3>
              <NoStudents>Not in {monthName}.</NoStudents>
            </OutsideDay>
          );
        }
        const rows = grid.students.flatMap((row) => {
          const cell = row.lessons.find((lesson) => lesson.date === date);
          return cell && (cell.open || cell.id) ? [{ row, cell }] : [];
        });
        return (
          <Day key={date} data-testid={`day-${date}`} aria-labelledby={`day-${date}-heading`}>
            <h3 id={`day-${date}-heading`}>{formatColumnDate(date)}</h3>
            {rows.length === 0 ? <NoStudents>No students have an engagement on this day.</NoStudents> : null}
            {rows.map(({ row, cell }) => (
              <DayRow key={row.engagementId}>
                <span>{row.studentName}</span>
                <LessonCell inRow cell={cell} studentName={row.studentName} calls={callsFor(row.engagementId, date)} />
              </DayRow>
            ))}
          </Day>
        );
      })}
    </div>
  );
}
