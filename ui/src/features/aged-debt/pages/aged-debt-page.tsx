import styled from '@emotion/styled';
import { Link } from 'react-router-dom';
import { Button } from '../../../components/button';
import { LoadState } from '../../../components/load-state';
import { PageHeading } from '../../../components/page-heading';
import { EmptyRow, Table, TableWrap, Td, Th, TotalsFooter, Tr } from '../../../components/table';
import { formatDate, formatMoney } from '../../../lib/format';
import { useLiveRefresh } from '../../../lib/live-updates';
import { useLoader } from '../../../lib/use-loader';
import { type AgedDebtAnswer, agedDebtCsvUrl, fetchAgedDebt } from '../api';

const Download = styled.a(({ theme }) => ({ color: theme.colors.primary, fontWeight: 600 }));
const Actions = styled.div({ display: 'flex', gap: '1rem', alignItems: 'center', '@media print': { display: 'none' } });
const AsOf = styled.p(({ theme }) => ({ color: theme.colors.muted, margin: '0 0 1rem' }));

const loadReport = (_: 'today', signal: AbortSignal) => fetchAgedDebt(signal);
const COLUMNS = ['current', 'days1to30', 'days31to60', 'days61to90', 'over90', 'total'] as const;
const HEADS = ['Current', '1–30 days', '31–60 days', '61–90 days', 'Over 90 days', 'Total'];

function AgedDebtTable({ report }: { report: AgedDebtAnswer }) {
  return (
    <TableWrap>
      <Table>
        <caption className="visually-hidden">What each family owes, by days past the due date</caption>
        <thead>
          <tr>
            <Th scope="col">Family</Th>
            <Th scope="col">Invoices</Th>
            {HEADS.map((head) => (
              <Th key={head} scope="col">
                {head}
              </Th>
            ))}
            <Th scope="col">Last reminder</Th>
          </tr>
        </thead>
        <tbody>
          {report.rows.length === 0 ? (
            <tr>
              <EmptyRow colSpan={HEADS.length + 3}>No family owes anything</EmptyRow>
            </tr>
          ) : (
            report.rows.map((row) => (
              <Tr key={row.clientId}>
                <Td>
                  {row.clientId.startsWith('registration:') ? (
                    row.family
                  ) : (
                    <Link to={`/client/${row.clientId}`}>{row.family}</Link>
                  )}
                </Td>
                <Td numeric>{row.invoices}</Td>
                {COLUMNS.map((column) => (
                  <Td key={column} numeric>
                    {formatMoney(row[column])}
                  </Td>
                ))}
                <Td nowrap>
                  {row.lastReminder ? `${row.lastReminder.step} on ${formatDate(row.lastReminder.date)}` : ''}
                </Td>
              </Tr>
            ))
          )}
        </tbody>
        {report.rows.length > 0 ? (
          <TotalsFooter
            labelColumns={2}
            totals={COLUMNS.map((column) => ({ testId: `aged-${column}`, amount: report.totals[column] }))}
            trailingColumns={1}
          />
        ) : null}
      </Table>
    </TableWrap>
  );
}

/**
 * reports/aged-debt (admins, partners and auditors): what each family owes on invoices not paid
 * and not credited, by days past the due date, with its latest reminder; printable, and as CSV.
 */
export function AgedDebtPage() {
  const report = useLoader(loadReport, 'today');
  useLiveRefresh(['family-invoices'], report.refresh);
  return (
    <>
      <PageHeading title="Aged Debt">
        <Actions>
          <Download href={agedDebtCsvUrl} download>
            Download CSV
          </Download>
          <Button type="button" variant="secondary" onClick={() => window.print()}>
            Print
          </Button>
        </Actions>
      </PageHeading>
      <LoadState state={report.state} onRetry={report.retry}>
        {(answer) => (
          <>
            <AsOf>As of {formatDate(answer.asOf)}</AsOf>
            <AgedDebtTable report={answer} />
          </>
        )}
      </LoadState>
    </>
  );
}
