import styled from '@emotion/styled';
import { lazy, type ReactNode, Suspense } from 'react';
import { Link } from 'react-router-dom';
import { ButtonLink } from '../../../components/button';
import { LoadState } from '../../../components/load-state';
import { PageHeading } from '../../../components/page-heading';
import { Panel, SectionHeading } from '../../../components/panel';
import { Table, TableWrap, Td, Th } from '../../../components/table';
import { useCurrentUser } from '../../../lib/current-user';
import { formatDate, formatDateTime, formatMoney } from '../../../lib/format';
import { useLiveRefresh } from '../../../lib/live-updates';
import { MODEL_OPTIONS } from '../../../lib/money-models';
import { useLoader } from '../../../lib/use-loader';
import {
  type Dashboard,
  type DashboardInvoice,
  type DashboardMonth,
  fetchDashboard,
  fetchUpcomingWorkshops,
} from '../api';

// The chart library is large: it loads with this screen only, after the figures.
const EarningsChart = lazy(() => import('../../../components/earnings-chart'));

const Cards = styled.div({
  display: 'grid',
  gridTemplateColumns: 'repeat(auto-fit, minmax(min(100%, 20rem), 1fr))',
  gap: '0 1.5rem',
});
const Muted = styled.p(({ theme }) => ({ color: theme.colors.muted, margin: 0 }));
const Items = styled.ul({ margin: 0, paddingLeft: '1.25rem', '& li': { marginBottom: '0.35rem' } });

const loadDashboard = (_: null, signal: AbortSignal) => fetchDashboard(signal);
const loadWorkshops = (admin: boolean, signal: AbortSignal) =>
  admin ? fetchUpcomingWorkshops(signal) : Promise.resolve([]);

/** `?year&month[&tutorId]`: the global selection of the screen a card links to. */
const selectionOf = (year: number, month: number, tutorId?: string) => {
  const search = new URLSearchParams({ year: String(year), month: String(month) });
  if (tutorId) search.set('tutorId', tutorId);
  return search.toString();
};

/** dashboard (the logo's target): what needs attention, by role. */
export function DashboardPage() {
  const { state, retry, refresh } = useLoader(loadDashboard, null);
  useLiveRefresh(['lessons', 'invoices', 'tutors', 'engagements', 'family-invoices'], refresh);
  const user = useCurrentUser();
  return (
    <>
      <PageHeading title="Dashboard" />
      <LoadState state={state} onRetry={retry}>
        {(data) => (user.role === 'tutor' ? <TutorDashboard data={data} /> : <StaffDashboard data={data} />)}
      </LoadState>
    </>
  );
}

function Card({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <Panel aria-labelledby={`${id}-heading`} data-testid={id}>
      <SectionHeading id={`${id}-heading`}>{title}</SectionHeading>
      {children}
    </Panel>
  );
}

function StaffDashboard({ data }: { data: Dashboard }) {
  const { thisMonth } = data;
  const user = useCurrentUser();
  const workshops = useLoader(loadWorkshops, user.role === 'admin' || user.role === 'auditor');
  const upcoming = (workshops.state.data ?? []).slice(0, 5);
  return (
    <>
      <MonthCard data={data} staff />
      <Cards>
        <Card id="awaiting-confirmation" title={`Invoices awaiting confirmation (${data.awaitingConfirmation.length})`}>
          <InvoiceLinks invoices={data.awaitingConfirmation} empty="Every generated invoice is confirmed." />
        </Card>
        <Card id="confirmed-unpaid" title={`Confirmed but unpaid (${data.confirmedUnpaid.length})`}>
          <InvoiceLinks invoices={data.confirmedUnpaid} empty="Every confirmed invoice is paid." owed />
        </Card>
        <Card id="no-lessons" title={`No lessons entered in ${thisMonth.period} (${data.tutorsWithoutLessons.length})`}>
          {data.tutorsWithoutLessons.length === 0 ? (
            <Muted>Every active tutor has lessons this month.</Muted>
          ) : (
            <Items>
              {data.tutorsWithoutLessons.map((tutor) => (
                <li key={tutor.tutorId}>
                  <Link to={`/lessons?${selectionOf(thisMonth.year, thisMonth.month, tutor.tutorId)}`}>
                    {tutor.name}
                  </Link>
                </li>
              ))}
            </Items>
          )}
        </Card>
        {upcoming.length > 0 ? (
          <Card id="upcoming-workshops" title="Upcoming workshops">
            <Items>
              {upcoming.map((event) => (
                <li key={event.id}>
                  <Link to={`/workshops/${encodeURIComponent(event.id)}`}>{event.description}</Link>,{' '}
                  {formatDateTime(event.dateTime)}: {event.placesLeft} {event.placesLeft === 1 ? 'place' : 'places'}{' '}
                  left
                </li>
              ))}
            </Items>
          </Card>
        ) : null}
        {data.unpaidFamilyInvoices.length > 0 ? (
          <Card id="unpaid-family-invoices" title={`Unpaid family invoices (${data.unpaidFamilyInvoices.length})`}>
            <Items>
              {data.unpaidFamilyInvoices.map((invoice) => (
                <li key={invoice.id}>
                  <a href={`/api/family-invoices/doc/${encodeURIComponent(invoice.id)}`} target="_blank" rel="noopener">
                    {invoice.reference}
                  </a>{' '}
                  {invoice.billedTo}: £{formatMoney(invoice.outstanding)} due {formatDate(invoice.dueDate)}
                </li>
              ))}
            </Items>
          </Card>
        ) : null}
      </Cards>
    </>
  );
}

function TutorDashboard({ data }: { data: Dashboard }) {
  return (
    <>
      <MonthCard data={data} staff={false} />
      <Cards>
        <Card id="invoice-to-confirm" title="Invoice to confirm">
          {data.awaitingConfirmation.length === 0 ? (
            <Muted>There is no invoice waiting for you.</Muted>
          ) : (
            data.awaitingConfirmation.map((invoice) => (
              <p key={invoice.id}>
                {invoice.period}: {invoice.reference}, commission £{formatMoney(invoice.commission)}{' '}
                <ButtonLink to={`/invoice/generate?${selectionOf(invoice.year, invoice.month)}`}>
                  Confirm {invoice.reference}
                </ButtonLink>
              </p>
            ))
          )}
        </Card>
        <Card id="current-students" title={`Current students (${data.currentStudents.length})`}>
          {data.currentStudents.length === 0 ? (
            <Muted>No current students.</Muted>
          ) : (
            <Items>
              {data.currentStudents.map((student) => (
                <li key={student.studentId}>{student.name}</li>
              ))}
            </Items>
          )}
        </Card>
      </Cards>
    </>
  );
}

function InvoiceLinks({ invoices, empty, owed }: { invoices: DashboardInvoice[]; empty: string; owed?: boolean }) {
  if (invoices.length === 0) return <Muted>{empty}</Muted>;
  return (
    <Items>
      {invoices.map((invoice) => (
        <li key={invoice.id}>
          <Link to={`/invoices?${selectionOf(invoice.year, invoice.month, invoice.tutorId)}`}>
            {invoice.tutorName}, {invoice.period}
          </Link>{' '}
          ({invoice.reference}
          {owed ? `, £${formatMoney(invoice.commission - invoice.paid)} owed` : ''})
        </li>
      ))}
    </Items>
  );
}

/**
 * Once any lesson of the two months is under another model than the spec's, a row per model with
 * its lessons: what goes on the tutors' commission invoices, what the agency bills the families.
 */
function modelRows(months: DashboardMonth[]): [label: string, value: (month: DashboardMonth) => string][] {
  const present = new Set(months.flatMap((month) => (month.byModel ?? []).map((part) => part.model)));
  if ([...present].every((model) => model === 'tutor-pays-commission')) return [];
  return MODEL_OPTIONS.filter((option) => present.has(option.value)).map(({ value, label }) => [
    `${label}: lessons`,
    (month) => String(month.byModel?.find((part) => part.model === value)?.lessonCount ?? 0),
  ]);
}

/** This month so far against last month, in a table and (for the eye) a small chart of the same figures. */
function MonthCard({ data, staff }: { data: Dashboard; staff: boolean }) {
  const months: DashboardMonth[] = [data.lastMonth, data.thisMonth];
  type Row = [label: string, value: (month: DashboardMonth) => string];
  const partner: Row = ['Partner Share', (month) => `£${formatMoney(month.partnerCommission)}`];
  const rows: Row[] = [
    ['Lessons', (month) => String(month.lessonCount)],
    ['Earnings', (month) => `£${formatMoney(month.earnings)}`],
    ['Commission', (month) => `£${formatMoney(month.commission)}`],
    ...(staff ? [partner] : []),
    ...modelRows(months),
  ];
  const worked = months.some((month) => month.earnings > 0);
  return (
    <Card id="this-month" title={`${data.thisMonth.period} so far`}>
      <TableWrap>
        <Table>
          <caption className="visually-hidden">This month so far against last month</caption>
          <thead>
            <tr>
              <Th scope="col">
                <span className="visually-hidden">Figure</span>
              </Th>
              <Th scope="col">{data.thisMonth.period}</Th>
              <Th scope="col">{data.lastMonth.period}</Th>
            </tr>
          </thead>
          <tbody>
            {rows.map(([label, value]) => (
              <tr key={label}>
                <Th scope="row">{label}</Th>
                <Td numeric>{value(data.thisMonth)}</Td>
                <Td numeric>{value(data.lastMonth)}</Td>
              </tr>
            ))}
          </tbody>
        </Table>
      </TableWrap>
      {worked ? (
        <figure
          style={{ margin: '1rem 0 0' }}
          aria-label="Bar chart of earnings and commission, last month and this month so far; the same figures are in the table above."
        >
          <Suspense fallback={<Muted role="status">Loading chart…</Muted>}>
            <EarningsChart tutors={months.map((month) => ({ name: month.period, ...month }))} />
          </Suspense>
        </figure>
      ) : null}
    </Card>
  );
}
