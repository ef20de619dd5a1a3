import styled from '@emotion/styled';
import { lazy, Suspense } from 'react';
import { AsOfControl } from '../../../components/as-of';
import { LoadState } from '../../../components/load-state';
import { MonthFilter } from '../../../components/month-filter';
import { PageHeading } from '../../../components/page-heading';
import { Panel, SectionHeading } from '../../../components/panel';
import { EmptyRow, Table, TableWrap, Td, Th, TotalRow, Tr } from '../../../components/table';
import { useAsOf } from '../../../lib/as-of';
import type { CalendarMonth } from '../../../lib/calendar-month';
import { formatMoney } from '../../../lib/format';
import { useGlobalSelection } from '../../../lib/global-selection';
import { useLiveRefresh } from '../../../lib/live-updates';
import { monthNote } from '../../../lib/money-models';
import { useLoader } from '../../../lib/use-loader';
import { fetchInvoiceStatus, type InvoiceStatusReport, type StatusGroup } from '../api';

// The chart library is large: it loads with this screen only.
const EarningsChart = lazy(() => import('../../../components/earnings-chart'));

const Muted = styled.p(({ theme }) => ({ color: theme.colors.muted }));
const Group = styled.section({ marginBottom: '1.75rem' });

const loadReport = (selected: CalendarMonth & { asOf: string }, signal: AbortSignal) =>
  fetchInvoiceStatus(selected, signal);

/**
 * reports/invoices: the month's tutors in the spec's four invoice status groups, with a chart
 * of earnings and commission by tutor above. The month is the global selection's (which
 * carries it between Lessons, Invoices and this report); its tutor is kept for the next screen.
 */
export function InvoiceStatusPage() {
  const { selection, select } = useGlobalSelection(false);
  const selected = { year: selection.year, month: selection.month };
  const { asOf } = useAsOf();
  const report = useLoader(loadReport, { ...selected, asOf });
  useLiveRefresh(['lessons', 'invoices', 'tutors'], report.refresh);
  return (
    <>
      <PageHeading title="Invoice Status" />
      <MonthFilter id="report" value={selected} onChange={select} />
      <AsOfControl id="report" />
      <LoadState state={report.state} onRetry={report.retry}>
        {(data) => <Report report={data} />}
      </LoadState>
    </>
  );
}

function Report({ report }: { report: InvoiceStatusReport }) {
  const worked = report.groups
    .filter((group) => group.full)
    .flatMap((group) => group.tutors)
    .filter((tutor) => tutor.earnings > 0 || tutor.commission > 0)
    .map(({ name, earnings, commission }) => ({ name, earnings, commission }));
  return (
    <>
      <Panel aria-labelledby="earnings-chart-heading">
        <SectionHeading id="earnings-chart-heading">Earnings and commission by tutor, {report.period}</SectionHeading>
        {worked.length === 0 ? (
          <Muted>No earnings this month.</Muted>
        ) : (
          <figure
            style={{ margin: 0 }}
            aria-label={`Bar chart of earnings and commission by tutor for ${report.period}; the same figures are in the tables below.`}
          >
            <Suspense fallback={<Muted role="status">Loading chart…</Muted>}>
              <EarningsChart tutors={worked} />
            </Suspense>
          </figure>
        )}
      </Panel>
      {report.groups.length === 0 ? <Muted>There were no tutors working in {report.period}.</Muted> : null}
      {report.groups.map((group) => (
        <GroupTable key={group.group} group={group} />
      ))}
    </>
  );
}

function GroupTable({ group }: { group: StatusGroup }) {
  const headingId = `status-group-${group.group}`;
  return (
    <Group aria-labelledby={headingId} data-testid={headingId}>
      <SectionHeading id={headingId}>{group.heading}</SectionHeading>
      <TableWrap>
        <Table aria-labelledby={headingId}>
          <thead>
            <tr>
              <Th scope="col">Name</Th>
              {group.full ? (
                <>
                  <Th scope="col">Earnings</Th>
                  <Th scope="col">Commission</Th>
                  <Th scope="col">Partner Share</Th>
                </>
              ) : null}
            </tr>
          </thead>
          <tbody>
            {group.tutors.length === 0 ? (
              <tr>
                <EmptyRow colSpan={group.full ? 4 : 1}>No tutors</EmptyRow>
              </tr>
            ) : (
              group.tutors.map((tutor) => (
                <Tr key={tutor.tutorId}>
                  <Td>
                    {tutor.name}
                    {monthNote(tutor.models) ? <span className="cell-note"> ({monthNote(tutor.models)})</span> : null}
                  </Td>
                  {group.full ? (
                    <>
                      <Td numeric>{formatMoney(tutor.earnings)}</Td>
                      <Td numeric>{formatMoney(tutor.commission)}</Td>
                      <Td numeric>{formatMoney(tutor.partnerCommission)}</Td>
                    </>
                  ) : null}
                </Tr>
              ))
            )}
          </tbody>
          <tfoot>
            <TotalRow>
              <Td>
                {group.full
                  ? 'Total'
                  : `Total: ${group.tutors.length} ${group.tutors.length === 1 ? 'tutor' : 'tutors'}`}
              </Td>
              {group.full ? (
                <>
                  <Td numeric>{formatMoney(group.totals.earnings)}</Td>
                  <Td numeric>{formatMoney(group.totals.commission)}</Td>
                  <Td numeric>{formatMoney(group.totals.partnerCommission)}</Td>
                </>
              ) : null}
            </TotalRow>
          </tfoot>
        </Table>
      </TableWrap>
    </Group>
  );
}
