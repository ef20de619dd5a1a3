import styled from '@emotion/styled';
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { Button } from '../../../components/button';
import { EmptyRow, Table, TableWrap, Td, Th, TotalsFooter, Tr } from '../../../components/table';
import { formatDate, formatMoney } from '../../../lib/format';
import { monthNote } from '../../../lib/money-models';
import { type InvoiceRow, type InvoicesList, invoiceDocumentUrl } from '../api';
import { PaymentForm, paymentFormId } from './payment-form';

const Tick = styled.span(({ theme }) => ({
  color: '#0f7a3d',
  fontWeight: 700,
  fontSize: '1.15rem',
  marginLeft: theme.radius,
}));
const RowButton = styled(Button)({
  minHeight: '2rem',
  padding: '0.25rem 0.6rem',
  fontSize: '0.9rem',
  whiteSpace: 'nowrap',
});
const DocumentLink = styled.a(({ theme }) => ({ color: theme.colors.primary, fontWeight: 600 }));
const VoidReference = styled.span(({ theme }) => ({ color: theme.colors.muted, textDecoration: 'line-through' }));

/** Spec §2 columns; Tutor and Partner Share for admins and partners, the payment control for admins. */
export function InvoicesTable({
  data,
  staff,
  admin,
  emptyText,
  onPaid,
}: {
  data: InvoicesList;
  staff: boolean;
  admin: boolean;
  emptyText: string;
  onPaid: () => void;
}) {
  const columns = 6 + (staff ? 2 : 0) + (admin ? 1 : 0);
  return (
    <TableWrap>
      <Table>
        <caption className="visually-hidden">Invoices</caption>
        <thead>
          <tr>
            <Th scope="col">Period</Th>
            <Th scope="col">Date</Th>
            {staff ? <Th scope="col">Tutor</Th> : null}
            <Th scope="col">Earnings</Th>
            <Th scope="col">Commission</Th>
            {staff ? <Th scope="col">Partner Share</Th> : null}
            <Th scope="col">Invoice</Th>
            <Th scope="col">Paid</Th>
            {admin ? <Th scope="col">Payment</Th> : null}
          </tr>
        </thead>
        <tbody>
          {data.invoices.length === 0 ? (
            <tr>
              <EmptyRow colSpan={columns}>{emptyText}</EmptyRow>
            </tr>
          ) : (
            data.invoices.map((invoice) => (
              <InvoiceLine
                key={invoice.id}
                invoice={invoice}
                staff={staff}
                admin={admin}
                columns={columns}
                onPaid={onPaid}
              />
            ))
          )}
        </tbody>
        {data.invoices.length > 0 ? (
          <TotalsFooter
            labelColumns={staff ? 3 : 2}
            totals={[
              { testId: 'total-earnings', amount: data.totals.earnings },
              { testId: 'total-commission', amount: data.totals.commission },
              ...(staff ? [{ testId: 'total-partner', amount: data.totals.partnerCommission }] : []),
            ]}
            trailingColumns={admin ? 3 : 2}
          />
        ) : null}
      </Table>
    </TableWrap>
  );
}

function InvoiceLine({
  invoice,
  staff,
  admin,
  columns,
  onPaid,
}: {
  invoice: InvoiceRow;
  staff: boolean;
  admin: boolean;
  columns: number;
  onPaid: () => void;
}) {
  const [paying, setPaying] = useState(false);
  const paid = invoice.paid > 0;
  return (
    <>
      <Tr>
        <Td nowrap>{invoice.period}</Td>
        <Td nowrap>{formatDate(invoice.date)}</Td>
        {staff ? (
          <Td>
            {invoice.tutorName}
            {monthNote(invoice.models) ? <span className="cell-note"> ({monthNote(invoice.models)})</span> : null}
          </Td>
        ) : null}
        <Td numeric>{formatMoney(invoice.earnings)}</Td>
        <Td numeric>{formatMoney(invoice.commission)}</Td>
        {staff ? <Td numeric>{formatMoney(invoice.partnerCommission)}</Td> : null}
        <Td nowrap>
          {invoice.void ? (
            // Withdrawn: the reference stays listed, never reused, and is in no total.
            <>
              <VoidReference>{invoice.reference}</VoidReference> (void)
            </>
          ) : (
            <DocumentLink href={invoiceDocumentUrl(invoice.id)} target="_blank" rel="noopener">
              {invoice.reference}
            </DocumentLink>
          )}
          {staff ? (
            <>
              {' '}
              <Link to={`/invoice/trace/${invoice.id}`} aria-label={`Trace ${invoice.reference}`}>
                Trace
              </Link>
            </>
          ) : null}
        </Td>
        <Td>
          {paid ? (
            <Tick
              role="img"
              aria-label={`Paid £${formatMoney(invoice.paid)}`}
              title={`Paid £${formatMoney(invoice.paid)}`}
            >
              ✓
            </Tick>
          ) : (
            <span className="visually-hidden">Not paid</span>
          )}
        </Td>
        {admin && invoice.void ? <Td /> : null}
        {admin && !invoice.void ? (
          <Td>
            <RowButton
              type="button"
              variant="secondary"
              aria-label={`Record payment for ${invoice.reference}`}
              aria-expanded={paying}
              aria-controls={paying ? paymentFormId(invoice) : undefined}
              onClick={() => setPaying(!paying)}
            >
              Record payment
            </RowButton>
          </Td>
        ) : null}
      </Tr>
      {paying ? (
        <tr>
          <Td colSpan={columns}>
            <PaymentForm
              invoice={invoice}
              onCancel={() => setPaying(false)}
              onRecorded={() => {
                setPaying(false);
                onPaid();
              }}
            />
          </Td>
        </tr>
      ) : null}
    </>
  );
}
