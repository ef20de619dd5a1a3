import styled from '@emotion/styled';
import { useState } from 'react';
import { Navigate, useNavigate, useParams, useSearchParams } from 'react-router-dom';
import { ErrorAlert } from '../../../components/alert';
import { Button, ButtonLink, ButtonRow } from '../../../components/button';
import { LoadState } from '../../../components/load-state';
import { PageHeading } from '../../../components/page-heading';
import { Panel } from '../../../components/panel';
import { Table, TableWrap, Td, Th, TotalRow, Tr } from '../../../components/table';
import { type CalendarMonth, monthFromSearch, monthTitle } from '../../../lib/calendar-month';
import { useCommandId } from '../../../lib/command-id';
import { useCurrentUser } from '../../../lib/current-user';
import { formatMoney } from '../../../lib/format';
import { errorMessage } from '../../../lib/http';
import { useLoader } from '../../../lib/use-loader';
import { confirmInvoice, type Invoice, saveInvoice } from '../api';

const Lead = styled.p(({ theme }) => ({ color: theme.colors.muted, marginTop: 0 }));
const NoLessons = styled.p({ fontSize: '1.1rem', margin: '0.5rem 0 0' });

type Generation = CalendarMonth & { tutorId: string; commandId: string };

/** Generating is idempotent on the server: a second visit answers with the invoice already made. */
const generate = ({ tutorId, year, month, commandId }: Generation) => saveInvoice({ tutorId, year, month, commandId });

const invoicesLink = (selected: CalendarMonth, tutorId?: string) => {
  const search = new URLSearchParams({ year: String(selected.year), month: String(selected.month) });
  if (tutorId) search.set('tutorId', tutorId);
  return `/invoices?${search}`;
};

/**
 * invoice/generate[/{tutorId}]?year&month: generates the month's invoice (locking its lessons),
 * then asks for confirmation. A confirmed invoice never changes, so it goes back to the list.
 */
export function InvoiceConfirmationPage() {
  const user = useCurrentUser();
  const params = useParams();
  const [search] = useSearchParams();
  const selected = monthFromSearch(search);
  const tutorId = params.tutorId ?? user.tutorId ?? '';
  const staff = user.role !== 'tutor';
  const back = invoicesLink(selected, staff && params.tutorId ? params.tutorId : undefined);
  // One generation per visit: a retry of the load repeats it with the same command id.
  const commandId = useCommandId().current();

  if (!tutorId) {
    return (
      <>
        <PageHeading title="Invoice" />
        <ErrorAlert>Choose a tutor first: an invoice is generated for one tutor's month.</ErrorAlert>
        <ButtonLink to="/lessons" variant="secondary">
          Back to Lessons
        </ButtonLink>
      </>
    );
  }
  return <Generate generation={{ ...selected, tutorId, commandId }} back={back} />;
}

function Generate({ generation, back }: { generation: Generation; back: string }) {
  const { state, retry } = useLoader(generate, generation);
  return (
    <>
      <PageHeading title="Invoice" />
      <LoadState state={state} onRetry={retry}>
        {(invoice) =>
          invoice.locked ? (
            <Navigate to={back} replace />
          ) : (
            <Confirmation invoice={invoice} period={monthTitle(generation)} back={back} />
          )
        }
      </LoadState>
    </>
  );
}

function Confirmation({ invoice, period, back }: { invoice: Invoice; period: string; back: string }) {
  const navigate = useNavigate();
  const commandId = useCommandId();
  const [failure, setFailure] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);

  const confirm = async () => {
    setFailure(null);
    setConfirming(true);
    try {
      await confirmInvoice({ id: invoice.id, commandId: commandId.current() });
      commandId.settle();
      navigate(back);
    } catch (error) {
      commandId.settle(error);
      setFailure(errorMessage(error));
      setConfirming(false);
    }
  };

  return (
    <Panel aria-label={`Invoice ${invoice.reference}`}>
      <Lead>
        Invoice {invoice.reference} for {period}
      </Lead>
      {invoice.totalCommission > 0 ? (
        <TableWrap>
          <Table>
            <caption className="visually-hidden">Invoice items</caption>
            <thead>
              <tr>
                <Th scope="col">No.</Th>
                <Th scope="col">Item</Th>
                <Th scope="col">Amount</Th>
              </tr>
            </thead>
            <tbody>
              {invoice.items.map((item, index) => (
                <Tr key={item.commissionRate}>
                  <Td>{index + 1}</Td>
                  <Td>{item.description}</Td>
                  <Td numeric>{formatMoney(item.commission)}</Td>
                </Tr>
              ))}
            </tbody>
            <tfoot>
              <TotalRow>
                <Td />
                <Td>Total Commission</Td>
                <Td numeric data-testid="total-commission">
                  {formatMoney(invoice.totalCommission)}
                </Td>
              </TotalRow>
            </tfoot>
          </Table>
        </TableWrap>
      ) : (
        <NoLessons>Please confirm that you did not have any lessons this month</NoLessons>
      )}
      {failure ? <ErrorAlert>{failure}</ErrorAlert> : null}
      <ButtonRow>
        <Button type="button" onClick={confirm} disabled={confirming}>
          Confirm
        </Button>
        <Button type="button" variant="secondary" onClick={() => navigate(back)}>
          Cancel
        </Button>
      </ButtonRow>
    </Panel>
  );
}
