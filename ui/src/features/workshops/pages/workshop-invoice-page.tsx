import styled from '@emotion/styled';
import { useEffect, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { ErrorAlert } from '../../../components/alert';
import { Button, ButtonRow } from '../../../components/button';
import { LoadState } from '../../../components/load-state';
import { PageHeading } from '../../../components/page-heading';
import { Panel } from '../../../components/panel';
import { Table, TableWrap, Td, Th, TotalRow, Tr } from '../../../components/table';
import { TextField } from '../../../components/text-field';
import { formatDate, formatMoney } from '../../../lib/format';
import { useLoader } from '../../../lib/use-loader';
import { confirmInvoice, createInvoice, type InvoiceDraft, invoiceDocumentUrl } from '../api';
import { useAction } from '../use-action';

const Excluded = styled.s(({ theme }) => ({ color: theme.colors.muted }));
const pence = (pounds: number) => Math.round(pounds * 100);

/** The discount field takes digits only (whole pounds), capped at the sum of the included prices. */
export function discountOf(typed: string, includedPence: number): number {
  const digits = typed.replace(/\D/g, '').slice(0, 7);
  return Math.min(Number(digits || '0') * 100, includedPence);
}

function InvoiceForm({ draft }: { draft: InvoiceDraft }) {
  const [included, setIncluded] = useState(() => new Set(draft.registrations.map((r) => r.id)));
  const [discountText, setDiscountText] = useState('0');
  const [issued, setIssued] = useState<{ id: string; reference: string; total: number } | null>(null);
  const sumPence = draft.registrations.filter((r) => included.has(r.id)).reduce((sum, r) => sum + pence(r.price), 0);
  const discountPence = discountOf(discountText, sumPence);
  const totalPence = Math.max(sumPence - discountPence, 0);
  useEffect(() => {
    // Excluding a line lowers the cap: the field shows the discount that applies.
    if (Number(discountText || '0') * 100 > sumPence) setDiscountText(String(Math.floor(sumPence / 100)));
  }, [discountText, sumPence]);
  const invoiced = {
    registrationIds: draft.registrations.filter((r) => included.has(r.id)).map((r) => r.id),
    discountAmount: discountPence / 100,
  };
  const confirm = useAction(
    () => JSON.stringify(invoiced),
    async (commandId) => {
      const answer = await confirmInvoice({ ...invoiced, commandId });
      setIssued(answer.invoice);
    },
  );
  const toggle = (id: string) =>
    setIncluded((now) => {
      const next = new Set(now);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  if (draft.registrations.length === 0) return <p>Nothing to invoice for {draft.email}.</p>;
  return (
    <Panel aria-label="Workshop invoice">
      <p>Email: {draft.email}</p>
      <TableWrap>
        <Table>
          <caption className="visually-hidden">Registrations to invoice</caption>
          <thead>
            <tr>
              <Th scope="col">Include</Th>
              <Th scope="col">Event</Th>
              <Th scope="col">Date</Th>
              <Th scope="col">Children</Th>
              <Th scope="col">Amount</Th>
            </tr>
          </thead>
          <tbody>
            {draft.registrations.map((r) => {
              const cell = (text: string) => (included.has(r.id) ? text : <Excluded>{text}</Excluded>);
              return (
                <Tr key={r.id}>
                  <Td>
                    <input
                      type="checkbox"
                      aria-label={`Include ${r.event} for ${r.children.join(', ')}`}
                      checked={included.has(r.id)}
                      disabled={issued !== null}
                      onChange={() => toggle(r.id)}
                    />
                  </Td>
                  <Td>{cell(r.event)}</Td>
                  <Td nowrap>{cell(formatDate(r.date))}</Td>
                  <Td>{cell(r.children.join(', '))}</Td>
                  <Td numeric>{cell(formatMoney(r.price))}</Td>
                </Tr>
              );
            })}
          </tbody>
          <tfoot>
            <TotalRow>
              <Td colSpan={4}>Total</Td>
              <Td numeric data-testid="invoice-total">
                {formatMoney(totalPence / 100)}
              </Td>
            </TotalRow>
          </tfoot>
        </Table>
      </TableWrap>
      <TextField
        id="discount"
        label="Discount (£)"
        inputMode="numeric"
        value={discountText}
        disabled={issued !== null}
        onChange={(event) => setDiscountText(event.target.value.replace(/\D/g, ''))}
      />
      {confirm.failure ? <ErrorAlert>{confirm.failure}</ErrorAlert> : null}
      {issued ? (
        <p role="status">
          Invoice{' '}
          <a href={invoiceDocumentUrl(issued.id)} target="_blank" rel="noopener">
            {issued.reference}
          </a>{' '}
          issued for £{formatMoney(issued.total)} and e-mailed.
        </p>
      ) : (
        <ButtonRow>
          <Button type="button" disabled={confirm.busy || included.size === 0} onClick={() => confirm.run()}>
            Confirm
          </Button>
        </ButtonRow>
      )}
    </Panel>
  );
}

const loadDraft = (email: string, signal: AbortSignal) =>
  signal.aborted ? Promise.reject(new Error('cancelled')) : createInvoice(email);

/** workshops/invoice?email=: every registration of that e-mail not yet invoiced, to include or exclude. */
export function WorkshopInvoicePage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const email = params.get('email') ?? '';
  const { state, retry } = useLoader(loadDraft, email);
  return (
    <>
      <PageHeading title="Workshop Invoice">
        <Button type="button" variant="secondary" onClick={() => navigate(-1)}>
          Back
        </Button>
      </PageHeading>
      <LoadState state={state} onRetry={retry}>
        {(draft) => <InvoiceForm draft={draft} />}
      </LoadState>
    </>
  );
}
