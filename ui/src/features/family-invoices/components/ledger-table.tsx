import styled from '@emotion/styled';
import { Fragment, useState } from 'react';
import { Link } from 'react-router-dom';
import { FamilyDocumentLink } from '../../../components/family-document-link';
import { EmptyRow, Table, TableWrap, Td, Th, TotalsFooter, Tr } from '../../../components/table';
import { useCurrentUser } from '../../../lib/current-user';
import { FAMILY_INVOICE_STATE_LABELS } from '../../../lib/family-invoices';
import { formatDate, formatMoney } from '../../../lib/format';
import type { FamilyLedgerAnswer, FamilyLedgerEntry } from '../api';
import { LessonCreditButton } from './lesson-credit-button';
import { LessonLines } from './lesson-lines';

const Muted = styled.span(({ theme }) => ({ color: theme.colors.muted }));
const Toggle = styled.button(({ theme }) => ({
  background: 'none',
  border: 'none',
  padding: 0,
  marginLeft: '0.5rem',
  color: theme.colors.primary,
  cursor: 'pointer',
  textDecoration: 'underline',
}));

/** What the entry is, its document linked: "Invoice OTA00009 (consultation)", "Credit note CN-… for OTA…", "Payment on OTA…". */
function EntryCell({ entry }: { entry: FamilyLedgerEntry }) {
  if (entry.kind === 'payment') {
    return (
      <>
        Payment <Muted>on</Muted> <FamilyDocumentLink id={entry.invoiceId} reference={entry.invoiceReference} />
      </>
    );
  }
  if (entry.kind === 'credit note') {
    return (
      <>
        Credit note <FamilyDocumentLink id={entry.id} reference={entry.reference} /> <Muted>for</Muted>{' '}
        <FamilyDocumentLink id={entry.invoiceId} reference={entry.invoiceReference} />
      </>
    );
  }
  return (
    <>
      Invoice <FamilyDocumentLink id={entry.id} reference={entry.reference} /> <Muted>({entry.billedFor})</Muted>
    </>
  );
}

/** An amount in the column of its kind; blank in the others. */
const amountIn = (entry: FamilyLedgerEntry, kind: FamilyLedgerEntry['kind']) =>
  entry.kind === kind ? formatMoney(entry.amount) : '';

const COLUMNS = 8;

/**
 * The family invoices ledger: each invoice, credit note and payment on its own row, its amount
 * in the column of its kind, what is owed on each invoice; the footer totals every filtered entry
 * (every page's, not only this one's).
 */
export function LedgerTable({ answer, onChanged }: { answer: FamilyLedgerAnswer; onChanged?: () => void }) {
  const { entries, totals } = answer;
  const admin = useCurrentUser().role === 'admin';
  // A lessons invoice's lines open under its row.
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const toggle = (id: string) =>
    setOpen((before) => {
      const next = new Set(before);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  return (
    <TableWrap>
      <Table>
        <caption className="visually-hidden">Family invoices, credit notes and payments</caption>
        <thead>
          <tr>
            <Th scope="col">Date</Th>
            <Th scope="col">Entry</Th>
            <Th scope="col">Family</Th>
            <Th scope="col">State</Th>
            <Th scope="col">Invoiced</Th>
            <Th scope="col">Credited</Th>
            <Th scope="col">Paid</Th>
            <Th scope="col">Owed</Th>
          </tr>
        </thead>
        <tbody>
          {entries.length === 0 ? (
            <tr>
              <EmptyRow colSpan={COLUMNS}>No invoices, credit notes or payments match these filters</EmptyRow>
            </tr>
          ) : (
            entries.map((entry) => {
              const lessons = entry.kind === 'invoice' && entry.billedFor === 'lessons';
              return (
                <Fragment key={`${entry.kind} ${entry.id}`}>
                  <Tr>
                    <Td nowrap>{formatDate(entry.date)}</Td>
                    <Td>
                      <EntryCell entry={entry} />
                      {lessons ? (
                        <Toggle type="button" aria-expanded={open.has(entry.id)} onClick={() => toggle(entry.id)}>
                          {open.has(entry.id) ? 'Hide lines' : 'Lines'}
                        </Toggle>
                      ) : null}
                    </Td>
                    <Td>
                      {entry.clientId ? <Link to={`/client/${entry.clientId}`}>{entry.family}</Link> : entry.family}
                    </Td>
                    <Td nowrap>{FAMILY_INVOICE_STATE_LABELS[entry.state]}</Td>
                    <Td numeric>{amountIn(entry, 'invoice')}</Td>
                    <Td numeric>{amountIn(entry, 'credit note')}</Td>
                    <Td numeric>{amountIn(entry, 'payment')}</Td>
                    <Td numeric>{entry.owed === null ? '' : formatMoney(entry.owed)}</Td>
                  </Tr>
                  {lessons && open.has(entry.id) ? (
                    <tr>
                      <td colSpan={COLUMNS}>
                        <LessonLines id={entry.id} />
                        {admin && entry.clientId ? (
                          <LessonCreditButton clientId={entry.clientId} onCredited={() => onChanged?.()} />
                        ) : null}
                      </td>
                    </tr>
                  ) : null}
                </Fragment>
              );
            })
          )}
        </tbody>
        {entries.length > 0 ? (
          <TotalsFooter
            labelColumns={4}
            totals={[
              { testId: 'total-invoiced', amount: totals.invoiced },
              { testId: 'total-credited', amount: totals.credited },
              { testId: 'total-paid', amount: totals.paid },
              { testId: 'total-owed', amount: totals.owed },
            ]}
          />
        ) : null}
      </Table>
    </TableWrap>
  );
}
