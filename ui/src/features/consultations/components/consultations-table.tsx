import styled from '@emotion/styled';
import { useMachine } from '@xstate/react';
import type { ReactNode } from 'react';
import { fromPromise } from 'xstate';
import { ErrorAlert } from '../../../components/alert';
import { Button, ButtonRow } from '../../../components/button';
import { SortHeader, type SortOrder } from '../../../components/list-controls';
import { RecordPaymentForm } from '../../../components/record-payment-form';
import { EmptyRow, Table, TableWrap, Td, Th, Tr } from '../../../components/table';
import { useCommandIds } from '../../../lib/command-id';
import { formatDate, formatMoney } from '../../../lib/format';
import { errorMessage } from '../../../lib/http';
import {
  type ConsultationRow,
  type ConsultationSort,
  cancelConsultation,
  familyDocumentUrl,
  recordFamilyPayment,
} from '../api';
import { creditNoteParts, invoicingNote, owedNote } from '../invoice-status';
import { consultationActionsMachine } from '../machines/consultation-actions-machine';

const Tick = styled.span({ color: '#0f7a3d', fontWeight: 700, fontSize: '1.15rem' });
const DocumentLink = styled.a(({ theme }) => ({ color: theme.colors.primary, fontWeight: 600 }));
const Muted = styled.span(({ theme }) => ({ color: theme.colors.muted }));
const Owed = styled.span(({ theme }) => ({ color: theme.colors.danger, whiteSpace: 'nowrap' }));
const RowButton = styled(Button)({ minHeight: '2rem', padding: '0.25rem 0.6rem', fontSize: '0.85rem' });
const Question = styled.div({ padding: '0.25rem 0', '& p': { margin: '0 0 0.5rem' } });

const COLUMNS = 6;
const what = (row: ConsultationRow) => `the consultation of ${formatDate(row.date)} for ${row.child}`;

/**
 * Spec §2: Date, Name, Child, Amount, Invoice Ref (the PDF in a new tab), plus Paid; and, for the
 * admin, each row's actions: Record Payment on its invoice (part payments too) and Cancel
 * consultation (after a confirmation; an issued invoice is then credited and the credit note shows).
 */
export function ConsultationsTable({
  consultations,
  admin,
  onChanged,
  sorted,
  onSort,
}: {
  consultations: ConsultationRow[];
  /** The order the list is in (Date, Name, Child and Amount sort it), and the choice of another. */
  sorted: { sort: ConsultationSort; order: SortOrder };
  onSort: (column: ConsultationSort) => void;
  /** Only an admin records payments and cancels; an auditor reads the list. */
  admin: boolean;
  /** The list is out of date: a payment or a cancellation was recorded. */
  onChanged: () => void;
}) {
  // One command id per row's cancellation, reused on a retry after an unknown outcome.
  const commandIds = useCommandIds();
  const [snapshot, send] = useMachine(
    consultationActionsMachine.provide({
      actors: {
        cancelConsultation: fromPromise(async ({ input }) => {
          const action = `cancel:${input.consultationId}`;
          try {
            await cancelConsultation(input.consultationId, commandIds.idFor(action));
            commandIds.done(action);
          } catch (error) {
            commandIds.done(action, error);
            throw new Error(errorMessage(error));
          }
        }),
      },
      actions: { reload: onChanged },
    }),
  );
  const active = snapshot.context.consultationId;
  const columns = admin ? COLUMNS + 1 : COLUMNS;
  return (
    <TableWrap>
      <Table>
        <caption className="visually-hidden">Consultations</caption>
        <thead>
          <tr>
            <SortHeader column="date" label="Date" sorted={sorted} onSort={onSort} />
            <SortHeader column="name" label="Name" sorted={sorted} onSort={onSort} />
            <SortHeader column="child" label="Child" sorted={sorted} onSort={onSort} />
            <SortHeader column="amount" label="Amount" sorted={sorted} onSort={onSort} />
            <Th scope="col">Invoice Ref</Th>
            <Th scope="col">Paid</Th>
            {admin ? (
              <Th scope="col">
                <span className="visually-hidden">Actions</span>
              </Th>
            ) : null}
          </tr>
        </thead>
        <tbody>
          {consultations.length === 0 ? (
            <tr>
              <EmptyRow colSpan={columns}>No consultations recorded yet</EmptyRow>
            </tr>
          ) : (
            consultations.map((row) => {
              if (!admin) return <ConsultationLine key={row.id} row={row} />;
              const paying = snapshot.matches('paying') && active === row.id;
              const asking =
                (snapshot.matches('confirmingCancel') || snapshot.matches('cancelling')) && active === row.id;
              const payable = row.invoiceId !== null && !row.cancelled && row.owed > 0;
              const formId = `payment-${row.id}`;
              return (
                <ConsultationLine
                  key={row.id}
                  row={row}
                  actions={
                    <Td>
                      {payable ? (
                        <RowButton
                          type="button"
                          variant="secondary"
                          aria-label={`Record Payment for ${row.invoiceReference}`}
                          aria-expanded={paying}
                          aria-controls={paying ? formId : undefined}
                          onClick={() =>
                            send(paying ? { type: 'payment.close' } : { type: 'payment.open', consultationId: row.id })
                          }
                        >
                          Record Payment
                        </RowButton>
                      ) : null}{' '}
                      {row.cancelled ? null : (
                        <RowButton
                          type="button"
                          variant="secondary"
                          aria-label={`Cancel consultation of ${formatDate(row.date)} for ${row.child}`}
                          aria-expanded={asking}
                          onClick={() => send({ type: 'cancel.ask', consultationId: row.id })}
                        >
                          Cancel consultation
                        </RowButton>
                      )}
                    </Td>
                  }
                >
                  {paying && row.invoiceId ? (
                    <tr>
                      <Td colSpan={columns}>
                        <RecordPaymentForm
                          id={formId}
                          label={`Payment for ${row.invoiceReference}`}
                          outstanding={row.owed}
                          record={(payment) => recordFamilyPayment({ invoiceId: row.invoiceId ?? '', ...payment })}
                          onCancel={() => send({ type: 'payment.close' })}
                          onRecorded={() => send({ type: 'payment.recorded' })}
                        />
                      </Td>
                    </tr>
                  ) : null}
                  {asking ? (
                    <tr>
                      <Td colSpan={columns}>
                        <Question role="group" aria-label={`Cancel ${what(row)}?`}>
                          <p>
                            Cancel {what(row)}?
                            {row.invoiceReference
                              ? ` Invoice ${row.invoiceReference} is then credited by a credit note.`
                              : ''}
                          </p>
                          {snapshot.context.failure ? <ErrorAlert>{snapshot.context.failure}</ErrorAlert> : null}
                          <ButtonRow>
                            <Button
                              type="button"
                              disabled={snapshot.matches('cancelling')}
                              onClick={() => send({ type: 'cancel.confirm' })}
                            >
                              Yes, cancel it
                            </Button>
                            <Button
                              type="button"
                              variant="secondary"
                              disabled={snapshot.matches('cancelling')}
                              onClick={() => send({ type: 'cancel.dismiss' })}
                            >
                              Keep it
                            </Button>
                          </ButtonRow>
                        </Question>
                      </Td>
                    </tr>
                  ) : null}
                </ConsultationLine>
              );
            })
          )}
        </tbody>
      </Table>
    </TableWrap>
  );
}

/**
 * One consultation's row: its facts, then the admin's `actions` cell; `children`, any row opened
 * under it. While its invoicing workflow runs, the invoice cell says so (in place of the reference
 * until the invoice is issued).
 */
function ConsultationLine({
  row,
  actions,
  children,
}: {
  row: ConsultationRow;
  actions?: ReactNode;
  children?: ReactNode;
}) {
  const underWay = invoicingNote(row);
  const credits = creditNoteParts(row);
  // A part-paid invoice: the spec's tick, and what is still owed beside it.
  const owed = owedNote(row);
  return (
    <>
      <Tr>
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
          {underWay ? (
            <Muted role="status">
              {row.invoiceReference ? ' ' : ''}
              {underWay}
            </Muted>
          ) : null}
          {credits.length > 0 ? (
            <Muted>
              {' '}
              {credits.map((part) =>
                typeof part === 'string' ? (
                  part
                ) : (
                  <DocumentLink key={part.id} href={familyDocumentUrl(part.id)} target="_blank" rel="noopener">
                    {part.reference}
                  </DocumentLink>
                ),
              )}
            </Muted>
          ) : null}
          {row.cancelled && !underWay ? <Muted> (cancelled)</Muted> : null}
        </Td>
        <Td>
          {row.paid > 0 ? (
            <Tick role="img" aria-label={`Paid £${formatMoney(row.paid)}`} title={`Paid £${formatMoney(row.paid)}`}>
              ✓
            </Tick>
          ) : (
            <span className="visually-hidden">Not paid</span>
          )}
          {owed ? <Owed> {owed}</Owed> : null}
        </Td>
        {actions}
      </Tr>
      {children}
    </>
  );
}
