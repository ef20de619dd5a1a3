import { commissionNote } from '@agency/domain/invoice/commission-note';
import { fractionToBasisPoints, toPence } from '@agency/domain/shared/money';
import styled from '@emotion/styled';
import { useState } from 'react';
import { Navigate, useNavigate, useParams, useSearchParams } from 'react-router-dom';
import { ErrorAlert } from '../../../components/alert';
import { Button, ButtonLink, ButtonRow } from '../../../components/button';
import { ConfirmAction } from '../../../components/confirm-action';
import { LoadState } from '../../../components/load-state';
import { PageHeading } from '../../../components/page-heading';
import { Panel } from '../../../components/panel';
import { Table, TableWrap, Td, Th, TotalRow, Tr } from '../../../components/table';
import { type CalendarMonth, monthFromSearch, monthKey } from '../../../lib/calendar-month';
import { useCommandIds } from '../../../lib/command-id';
import { useAgencyToday, useCurrentUser } from '../../../lib/current-user';
import { formatMoney } from '../../../lib/format';
import { errorMessage } from '../../../lib/http';
import { mayInvoiceFor } from '../../../lib/may-invoice';
import { billedBy, modelLabel } from '../../../lib/money-models';
import { useLoader } from '../../../lib/use-loader';
import { confirmInvoice, fetchInvoicePreview, type InvoicePreview, saveInvoice, withdrawInvoice } from '../api';
import { daysLeftInWords } from '../early-invoice';

const Lead = styled.p(({ theme }) => ({ color: theme.colors.muted, marginTop: 0 }));
const NoLessons = styled.p({ fontSize: '1.1rem', margin: '0.5rem 0 0' });
const Void = styled.s(({ theme }) => ({ color: theme.colors.muted }));
const Notes = styled.ul(({ theme }) => ({
  color: theme.colors.muted,
  fontSize: '0.9rem',
  margin: '0.75rem 0 0',
  paddingLeft: '1.25rem',
}));

type Month = CalendarMonth & { tutorId: string };

const loadPreview = (month: Month, signal: AbortSignal) => fetchInvoicePreview(month, signal);

const invoicesLink = (selected: CalendarMonth, tutorId?: string) => {
  const search = new URLSearchParams({ year: String(selected.year), month: String(selected.month) });
  if (tutorId) search.set('tutorId', tutorId);
  return `/invoices?${search}`;
};

/**
 * invoice/generate[/{tutorId}]?year&month: shows what the month's invoice would hold before
 * anything is written; Generate Invoice makes it (and locks the month's lessons); an unconfirmed
 * invoice is then confirmed or withdrawn (its reference void, the month open again). A confirmed
 * invoice never changes, so the page goes back to the list.
 */
export function InvoiceConfirmationPage() {
  const user = useCurrentUser();
  const params = useParams();
  const [search] = useSearchParams();
  const selected = monthFromSearch(search);
  const tutorId = params.tutorId ?? user.tutorId ?? '';
  const back = invoicesLink(selected, user.role !== 'tutor' && params.tutorId ? params.tutorId : undefined);

  if (!mayInvoiceFor(user, tutorId)) {
    return (
      <>
        <PageHeading title="Invoice" />
        <ErrorAlert>
          {tutorId
            ? 'You can generate an invoice only for your own lessons.'
            : "Choose a tutor first: an invoice is generated for one tutor's month."}
        </ErrorAlert>
        <ButtonLink to="/lessons" variant="secondary">
          Back to Lessons
        </ButtonLink>
      </>
    );
  }
  return <MonthInvoice month={{ ...selected, tutorId }} back={back} />;
}

function MonthInvoice({ month, back }: { month: Month; back: string }) {
  const { state, retry, reload } = useLoader(loadPreview, month);
  return (
    <>
      <PageHeading title="Invoice" />
      <LoadState state={state} onRetry={retry}>
        {(preview) =>
          preview.invoice?.confirmed ? (
            <Navigate to={back} replace />
          ) : (
            <Confirmation preview={preview} month={month} back={back} onChanged={reload} />
          )
        }
      </LoadState>
    </>
  );
}

function Confirmation({
  preview,
  month,
  back,
  onChanged,
}: {
  preview: InvoicePreview;
  month: Month;
  back: string;
  onChanged: () => void;
}) {
  const navigate = useNavigate();
  const commandIds = useCommandIds();
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const { invoice } = preview;

  /** Generate, confirm and withdraw are three actions: each has its own command id. */
  const act = (action: string, command: (commandId: string) => Promise<unknown>, then: () => void) => async () => {
    setFailure(null);
    setBusy(true);
    try {
      await command(commandIds.idFor(action));
      commandIds.done(action);
      then();
    } catch (error) {
      commandIds.done(action, error);
      setFailure(errorMessage(error));
    }
    setBusy(false);
  };
  const generate = act('generate', (id) => saveInvoice({ ...month, commandId: id }), onChanged);
  // The current month is invoiced only early, once the user has confirmed that it locks the rest of it.
  const today = useAgencyToday();
  const notEnded = monthKey(month) === today.slice(0, 7);
  const generateEarly = act('generate-early', (id) => saveInvoice({ ...month, commandId: id, early: true }), onChanged);
  const confirm = act(
    `confirm:${invoice?.id}`,
    (id) => confirmInvoice({ id: invoice?.id ?? '', commandId: id }),
    () => navigate(back),
  );
  const withdraw = act(
    `withdraw:${invoice?.id}`,
    (id) => withdrawInvoice({ id: invoice?.id ?? '', commandId: id }),
    onChanged,
  );

  return (
    <Panel aria-label={invoice ? `Invoice ${invoice.reference}` : `Invoice preview for ${preview.period}`}>
      <Lead>
        {invoice
          ? `Invoice ${invoice.reference} for ${preview.period}`
          : `Preview of ${preview.tutorName}'s invoice for ${preview.period}: nothing is saved until you generate it.`}
      </Lead>
      {preview.totalCommission > 0 ? (
        <Items preview={preview} />
      ) : preview.notOnInvoice ? (
        <NoLessons>No commission is due on this month: the agency bills the families for its lessons.</NoLessons>
      ) : (
        <NoLessons>Please confirm that you did not have any lessons this month</NoLessons>
      )}
      <NotOnInvoice preview={preview} />
      {preview.voided.length > 0 ? (
        <p data-testid="voided">
          Withdrawn:{' '}
          {preview.voided.map((reference) => (
            <Void key={reference}>{reference} (void) </Void>
          ))}
        </p>
      ) : null}
      {failure ? <ErrorAlert>{failure}</ErrorAlert> : null}
      <ButtonRow>
        {invoice ? (
          <>
            <Button type="button" onClick={confirm} disabled={busy}>
              Confirm
            </Button>
            <ConfirmAction
              label="Withdraw"
              title={`Withdraw invoice ${invoice.reference}?`}
              confirmLabel="Withdraw"
              disabled={busy}
              onConfirm={withdraw}
            >
              <p>
                Its reference {invoice.reference} becomes void for good: it is never used again, and the next invoice
                for {preview.period} gets a new one. The month's lessons open again for changes.
              </p>
            </ConfirmAction>
          </>
        ) : notEnded ? (
          <ConfirmAction
            label="Generate Invoice"
            title={`Invoice ${preview.period} before it has ended?`}
            confirmLabel="Invoice early, lock the rest of the month"
            keepLabel="Not yet"
            variant="primary"
            disabled={busy}
            onConfirm={generateEarly}
          >
            <p>
              {preview.period} has not ended yet: invoicing it now locks its lessons up to the end of the month (
              {daysLeftInWords(today)}), so none can be added for those days unless the invoice is withdrawn.
            </p>
          </ConfirmAction>
        ) : (
          <Button type="button" onClick={generate} disabled={busy}>
            Generate Invoice
          </Button>
        )}
        <Button type="button" variant="secondary" onClick={() => navigate(back)}>
          Cancel
        </Button>
      </ButtonRow>
    </Panel>
  );
}

/** The month's lessons under another money model: not on the tutor's commission invoice, and why. */
function NotOnInvoice({ preview }: { preview: InvoicePreview }) {
  if (!preview.notOnInvoice) return null;
  return (
    <Notes aria-label="Lessons not on this invoice">
      {preview.notOnInvoice.map((part) => (
        <li key={part.model}>
          Not on this invoice: {part.lessonCount} {part.lessonCount === 1 ? 'lesson' : 'lessons'} (£
          {formatMoney(part.earnings)}) under {modelLabel(part.model)}, {billedBy(part.model)}: no commission is due
          from the tutor for {part.lessonCount === 1 ? 'it' : 'them'}.
        </li>
      ))}
    </Notes>
  );
}

function Items({ preview }: { preview: InvoicePreview }) {
  return (
    <>
      <ItemsTable preview={preview} />
      {/* Each item's commission is the sum of its lessons', each rounded to the penny: said under the table. */}
      <Notes aria-label="How the commission is worked out">
        {preview.items.map((item) => (
          <li key={item.commissionRate}>
            {commissionNote({
              commissionBp: fractionToBasisPoints(item.commissionRate),
              earningsPence: toPence(item.earnings),
              commissionPence: toPence(item.commission),
            })}
          </li>
        ))}
      </Notes>
    </>
  );
}

function ItemsTable({ preview }: { preview: InvoicePreview }) {
  return (
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
          {preview.items.map((item, index) => (
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
              {formatMoney(preview.totalCommission)}
            </Td>
          </TotalRow>
        </tfoot>
      </Table>
    </TableWrap>
  );
}
