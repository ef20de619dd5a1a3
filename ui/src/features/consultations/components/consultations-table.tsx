import styled from '@emotion/styled';
import { EmptyRow, Table, TableWrap, Td, Th, Tr } from '../../../components/table';
import { formatDate, formatMoney } from '../../../lib/format';
import { type ConsultationRow, familyDocumentUrl } from '../api';

const Tick = styled.span({ color: '#0f7a3d', fontWeight: 700, fontSize: '1.15rem' });
const DocumentLink = styled.a(({ theme }) => ({ color: theme.colors.primary, fontWeight: 600 }));
const Muted = styled.span(({ theme }) => ({ color: theme.colors.muted }));

/** Spec §2: Date, Name, Child, Amount, Invoice Ref (the PDF in a new tab), plus Paid. */
export function ConsultationsTable({ consultations }: { consultations: ConsultationRow[] }) {
  return (
    <TableWrap>
      <Table>
        <caption className="visually-hidden">Consultations</caption>
        <thead>
          <tr>
            <Th scope="col">Date</Th>
            <Th scope="col">Name</Th>
            <Th scope="col">Child</Th>
            <Th scope="col">Amount</Th>
            <Th scope="col">Invoice Ref</Th>
            <Th scope="col">Paid</Th>
          </tr>
        </thead>
        <tbody>
          {consultations.length === 0 ? (
            <tr>
              <EmptyRow colSpan={6}>No consultations recorded yet</EmptyRow>
            </tr>
          ) : (
            consultations.map((row) => (
              <Tr key={row.id}>
                <Td nowrap>{formatDate(row.date)}</Td>
                <Td>{row.name}</Td>
                <Td>
                  {row.child}
                  {row.assessment ? <Muted> (assessment)</Muted> : null}
                </Td>
                <Td numeric>{row.cancelled ? <s>{formatMoney(row.amount)}</s> : formatMoney(row.amount)}</Td>
                <Td>
                  {row.invoiceId && row.invoiceReference ? (
                    <DocumentLink href={familyDocumentUrl(row.invoiceId)} target="_blank" rel="noopener">
                      {row.invoiceReference}
                    </DocumentLink>
                  ) : null}
                  {row.creditNoteId && row.creditNoteReference ? (
                    <>
                      {' '}
                      <Muted>credited by</Muted>{' '}
                      <DocumentLink href={familyDocumentUrl(row.creditNoteId)} target="_blank" rel="noopener">
                        {row.creditNoteReference}
                      </DocumentLink>
                    </>
                  ) : null}
                  {row.cancelled ? <Muted> (cancelled)</Muted> : null}
                </Td>
                <Td>
                  {row.paid > 0 ? (
                    <Tick
                      role="img"
                      aria-label={`Paid £${formatMoney(row.paid)}`}
                      title={`Paid £${formatMoney(row.paid)}`}
                    >
                      ✓
                    </Tick>
                  ) : (
                    <span className="visually-hidden">Not paid</span>
                  )}
                </Td>
              </Tr>
            ))
          )}
        </tbody>
      </Table>
    </TableWrap>
  );
}
