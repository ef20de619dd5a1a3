import styled from '@emotion/styled';
import { memo } from 'react';
import { useNavigate } from 'react-router-dom';
import { AsOfControl } from '../../../components/as-of';
import { Button } from '../../../components/button';
import { LoadState } from '../../../components/load-state';
import { PageHeading } from '../../../components/page-heading';
import { Pager, useCursorPages } from '../../../components/pager';
import { SelectionFilter } from '../../../components/selection-filter';
import { EmptyRow, Table, TableWrap, Td, Th, TotalsFooter, Tr } from '../../../components/table';
import { useAsOf } from '../../../lib/as-of';
import { monthKey, monthTitle } from '../../../lib/calendar-month';
import { isOffice, useCurrentUser } from '../../../lib/current-user';
import { formatDate, formatMoney } from '../../../lib/format';
import { useGlobalSelection } from '../../../lib/global-selection';
import { useLiveRefresh } from '../../../lib/live-updates';
import { mayInvoiceFor } from '../../../lib/may-invoice';
import { billedBy } from '../../../lib/money-models';
import { useLoader } from '../../../lib/use-loader';
import { fetchLessons, fetchTutorOptions, type LessonsMonth, type LessonsQuery } from '../api';

const Actions = styled.div({ display: 'flex', flexWrap: 'wrap', gap: '0.75rem', marginTop: '1rem' });

const loadLessons = (query: LessonsQuery & { asOf: string; cursor?: string }, signal: AbortSignal) =>
  fetchLessons(query, signal);
const loadTutors = (staff: boolean, signal: AbortSignal) => (staff ? fetchTutorOptions(signal) : Promise.resolve([]));

/** lessons: the month's lessons with totals; the month, year and tutor live in the address. */
export function LessonsPage() {
  const user = useCurrentUser();
  const navigate = useNavigate();
  const staff = isOffice(user);
  const { selection: selected, select } = useGlobalSelection(staff);
  const { year, month } = selected;
  const tutorId = staff ? selected.tutorId : (user.tutorId ?? '');

  const { asOf } = useAsOf();
  const filters = { year, month, tutorId: tutorId || undefined, asOf };
  const pages = useCursorPages(filters);
  const lessons = useLoader(loadLessons, { ...filters, cursor: pages.cursor });
  useLiveRefresh(['lessons'], lessons.refresh);
  const tutors = useLoader(loadTutors, staff);
  const title = monthTitle(selected);
  const forTutor = staff && tutorId ? `/${encodeURIComponent(tutorId)}` : '';
  const addLessons = () => navigate(`/lessons/add${forTutor}?month=${monthKey(selected)}`);
  const generateInvoice = () => navigate(`/invoice/generate${forTutor}?year=${year}&month=${month}`);

  return (
    <>
      <PageHeading title="Lessons" />
      <SelectionFilter
        id="lessons"
        selection={selected}
        onSelect={select}
        tutors={staff ? (tutors.state.data ?? []) : undefined}
      />
      <AsOfControl id="lessons" />
      <LoadState state={lessons.state} onRetry={lessons.retry}>
        {(data) => (
          <>
            <LessonsTable data={data} staff={staff} emptyText={emptyText(data, user.role === 'admin', title)} />
            <Pager paging={pages.paging(data, data.lessons.length)} label="Lessons" />
            {asOf ? null : (
              <Actions>
                {data.canAddLessons ? (
                  <Button type="button" onClick={addLessons}>
                    Add Lessons
                  </Button>
                ) : null}
                {/* A month with an invoice is never offered another: its invoice is shown instead. */}
                {mayInvoiceFor(user, tutorId) ? (
                  <Button type="button" variant="secondary" onClick={generateInvoice}>
                    {data.invoiceId ? 'View Invoice' : data.total > 0 ? 'Generate Invoice' : 'No lessons this month'}
                  </Button>
                ) : null}
              </Actions>
            )}
          </>
        )}
      </LoadState>
    </>
  );
}

/** Spec §2: the first text when lessons may still be added (or for an admin), else the second. */
const emptyText = (data: LessonsMonth, admin: boolean, month: string) =>
  data.canAddLessons || admin ? `No lessons recorded yet for ${month}` : `There were no lessons for ${month}`;

/** Drawn again only when its month's answer changes, not when the tutor options arrive. */
const LessonsTable = memo(function LessonsTable({
  data,
  staff,
  emptyText,
}: {
  data: LessonsMonth;
  staff: boolean;
  emptyText: string;
}) {
  const columns = staff ? 8 : 6;
  // Focusable, so the keyboard scrolls a table wider than the screen: its rows hold no link.
  return (
    <TableWrap tabIndex={0} role="region" aria-label="Lessons of the month">
      <Table>
        <caption className="visually-hidden">Lessons of the month</caption>
        <thead>
          <tr>
            <Th scope="col">Date</Th>
            {staff ? <Th scope="col">Tutor</Th> : null}
            <Th scope="col">Student</Th>
            <Th scope="col">Duration</Th>
            <Th scope="col">Rate</Th>
            <Th scope="col">Amount</Th>
            <Th scope="col">Commission</Th>
            {staff ? <Th scope="col">Partner Share</Th> : null}
          </tr>
        </thead>
        <tbody>
          {data.lessons.length === 0 ? (
            <tr>
              <EmptyRow colSpan={columns}>{emptyText}</EmptyRow>
            </tr>
          ) : (
            data.lessons.map((lesson) => (
              <Tr key={lesson.id}>
                <Td nowrap>
                  {formatDate(lesson.date)}
                  {lesson.locked ? <span className="cell-note"> (invoiced)</span> : null}
                </Td>
                {staff ? <Td>{lesson.tutor}</Td> : null}
                <Td>
                  {lesson.student}
                  {lesson.model && lesson.model !== 'tutor-pays-commission' ? (
                    <span className="cell-note"> ({billedBy(lesson.model)})</span>
                  ) : null}
                </Td>
                <Td numeric>{lesson.duration}</Td>
                <Td numeric>{formatMoney(lesson.rate)}</Td>
                <Td numeric>{formatMoney(lesson.amount)}</Td>
                <Td numeric>{formatMoney(lesson.commission)}</Td>
                {staff ? <Td numeric>{formatMoney(lesson.partnerCommission)}</Td> : null}
              </Tr>
            ))
          )}
        </tbody>
        {data.lessons.length > 0 ? (
          <TotalsFooter
            labelColumns={staff ? 5 : 4}
            totals={[
              { testId: 'total-amount', amount: data.totals.amount },
              { testId: 'total-commission', amount: data.totals.commission },
              ...(staff ? [{ testId: 'total-partner', amount: data.totals.partnerCommission }] : []),
            ]}
          />
        ) : null}
      </Table>
    </TableWrap>
  );
});
