import styled from '@emotion/styled';
import { type FormEvent, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { ErrorAlert } from '../../../components/alert';
import { Button } from '../../../components/button';
import { LoadState } from '../../../components/load-state';
import { FilterBar, FilterItem } from '../../../components/month-filter';
import { PageHeading } from '../../../components/page-heading';
import { Panel } from '../../../components/panel';
import { EmptyRow, Table, TableWrap, Td, Th, Tr } from '../../../components/table';
import { TextField } from '../../../components/text-field';
import { useCommandIds } from '../../../lib/command-id';
import { isOffice, useAgencyToday, useCurrentUser } from '../../../lib/current-user';
import { formatDate, formatMoney } from '../../../lib/format';
import { errorMessage } from '../../../lib/http';
import { useLiveRefresh } from '../../../lib/live-updates';
import { useLoader } from '../../../lib/use-loader';
import {
  confirmPayStatement,
  fetchPayStatement,
  fetchPayStatements,
  type PayStatementDetail,
  type PayStatementSummary,
  payStatementPdfUrl,
  preparePayStatements,
} from '../api';

const PdfLink = styled.a(({ theme }) => ({ color: theme.colors.primary, fontWeight: 600 }));
const Note = styled.p(({ theme }) => ({ color: theme.colors.muted }));

const loadList = (month: string, signal: AbortSignal) => fetchPayStatements(month, signal);
const loadOne = (id: string, signal: AbortSignal) =>
  id ? fetchPayStatement(id, signal) : Promise.resolve<PayStatementDetail | null>(null);

const KIND = { lesson: 'Lesson', held: 'Held', released: 'Released', adjustment: 'Adjustment' } as const;

/** An admin prepares a month's statements: each tutor's is issued once, however often this is asked. */
function PrepareForm({ onPrepared }: { onPrepared: () => void }) {
  const today = useAgencyToday();
  const commandIds = useCommandIds();
  const [month, setMonth] = useState(today.slice(0, 7));
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const action = `prepare:${month}`;
    setBusy(true);
    setOutcome(null);
    try {
      const answer = await preparePayStatements({ month, commandId: commandIds.idFor(action) });
      commandIds.done(action);
      const count = answer.statements.length;
      setOutcome({
        ok: true,
        text: answer.underWay
          ? `The statements of ${month} are being issued.`
          : `${count} statement${count === 1 ? '' : 's'} for ${month}.`,
      });
      onPrepared();
    } catch (error) {
      commandIds.done(action, error);
      setOutcome({ ok: false, text: errorMessage(error) });
    }
    setBusy(false);
  };
  return (
    <form onSubmit={submit} aria-label="Prepare pay statements">
      <FilterBar>
        <FilterItem>
          <TextField
            id="prepare-month"
            label="Month to prepare"
            type="month"
            value={month}
            onChange={(event) => setMonth(event.target.value)}
            required
          />
        </FilterItem>
        <Button type="submit" disabled={busy}>
          Prepare statements
        </Button>
      </FilterBar>
      {outcome ? (
        outcome.ok ? (
          <Note role="status">{outcome.text}</Note>
        ) : (
          <ErrorAlert>{outcome.text}</ErrorAlert>
        )
      ) : null}
    </form>
  );
}

function StatementsTable({ statements, onOpen }: { statements: PayStatementSummary[]; onOpen: (id: string) => void }) {
  return (
    <TableWrap>
      <Table>
        <caption className="visually-hidden">Pay statements</caption>
        <thead>
          <tr>
            <Th scope="col">Month</Th>
            <Th scope="col">Tutor</Th>
            <Th scope="col">Reference</Th>
            <Th scope="col">Date</Th>
            <Th scope="col">Total pay</Th>
            <Th scope="col">Held</Th>
            <Th scope="col">Paid</Th>
            <Th scope="col">Confirmed</Th>
          </tr>
        </thead>
        <tbody>
          {statements.length === 0 ? (
            <tr>
              <EmptyRow colSpan={8}>No pay statements</EmptyRow>
            </tr>
          ) : (
            statements.map((statement) => (
              <Tr key={statement.id} clickable onClick={() => onOpen(statement.id)}>
                <Td nowrap>{statement.period}</Td>
                <Td>{statement.tutorName}</Td>
                <Td>
                  <Button type="button" variant="secondary" onClick={() => onOpen(statement.id)}>
                    {statement.reference}
                  </Button>
                </Td>
                <Td nowrap>{formatDate(statement.date)}</Td>
                <Td numeric>{formatMoney(statement.totalPay)}</Td>
                <Td numeric>{formatMoney(statement.held)}</Td>
                <Td numeric>{formatMoney(statement.paid)}</Td>
                <Td>{statement.confirmed ? 'Yes' : 'No'}</Td>
              </Tr>
            ))
          )}
        </tbody>
      </Table>
    </TableWrap>
  );
}

/** One statement: its lines, held lessons and total; its tutor (or an admin for them) confirms it. */
function StatementPanel({ statement, onConfirmed }: { statement: PayStatementDetail; onConfirmed: () => void }) {
  const user = useCurrentUser();
  const commandIds = useCommandIds();
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const mayConfirm = user.role === 'admin' || user.tutorId === statement.tutorId;
  const confirm = async () => {
    const action = `confirm:${statement.id}`;
    setBusy(true);
    setFailure(null);
    try {
      await confirmPayStatement({ id: statement.id, commandId: commandIds.idFor(action) });
      commandIds.done(action);
      onConfirmed();
    } catch (error) {
      commandIds.done(action, error);
      setFailure(errorMessage(error));
    }
    setBusy(false);
  };
  return (
    <Panel aria-label={`Pay statement ${statement.reference}`}>
      <h2>
        Pay statement {statement.reference}: {statement.tutorName}, {statement.period}
      </h2>
      <TableWrap>
        <Table>
          <caption className="visually-hidden">The statement's lines</caption>
          <thead>
            <tr>
              <Th scope="col">Date</Th>
              <Th scope="col">Child</Th>
              <Th scope="col">Hours</Th>
              <Th scope="col">Amount</Th>
              <Th scope="col">Agency's share</Th>
              <Th scope="col">Pay</Th>
              <Th scope="col">Paid before</Th>
              <Th scope="col">This statement</Th>
              <Th scope="col">Line</Th>
            </tr>
          </thead>
          <tbody>
            {statement.lines.length === 0 ? (
              <tr>
                <EmptyRow colSpan={9}>No lesson on this statement</EmptyRow>
              </tr>
            ) : (
              statement.lines.map((line) => (
                <Tr key={`${line.kind}:${line.lessonId}`}>
                  <Td nowrap>{formatDate(line.date)}</Td>
                  <Td>{line.child}</Td>
                  <Td numeric>{line.hours}</Td>
                  <Td numeric>{formatMoney(line.amount)}</Td>
                  <Td numeric>{formatMoney(line.share)}</Td>
                  <Td numeric>{formatMoney(line.pay)}</Td>
                  <Td numeric>{formatMoney(line.paidBefore)}</Td>
                  <Td numeric>{line.kind === 'held' ? 'held' : formatMoney(line.line)}</Td>
                  <Td>{line.removed ? 'Removed' : KIND[line.kind]}</Td>
                </Tr>
              ))
            )}
          </tbody>
        </Table>
      </TableWrap>
      {statement.carried !== 0 ? <p>Carried from the last statement: {formatMoney(statement.carried)}</p> : null}
      <p>
        <strong>Total pay: {formatMoney(statement.totalPay)}</strong>
        {statement.held > 0 ? ` (held until the families pay: ${formatMoney(statement.held)})` : ''}; paid{' '}
        {formatMoney(statement.paid)}, left to pay {formatMoney(statement.owed)}.
      </p>
      <p>
        <PdfLink href={payStatementPdfUrl(statement.id)} target="_blank" rel="noopener">
          PDF of {statement.reference}
        </PdfLink>
      </p>
      {failure ? <ErrorAlert>{failure}</ErrorAlert> : null}
      {statement.confirmed ? (
        <p>Confirmed.</p>
      ) : mayConfirm ? (
        <Button type="button" onClick={confirm} disabled={busy}>
          Confirm statement
        </Button>
      ) : (
        <p>Not confirmed yet.</p>
      )}
    </Panel>
  );
}

/**
 * invoices/pay-statements: what the agency pays each tutor for the lessons it sold
 * (docs/money-models.md, "Pay statements"). A tutor sees their own and confirms each; the office
 * sees everyone's; an admin prepares a month's.
 */
export function PayStatementsPage() {
  const user = useCurrentUser();
  const office = isOffice(user);
  const [search, setSearch] = useSearchParams();
  const month = search.get('month') ?? '';
  const openId = search.get('statement') ?? '';
  const list = useLoader(loadList, month);
  const one = useLoader(loadOne, openId);
  useLiveRefresh(['pay-statements'], list.refresh);
  const change = (key: string, value: string) => {
    const next = new URLSearchParams(search);
    if (value) next.set(key, value);
    else next.delete(key);
    setSearch(next, { replace: true });
  };
  return (
    <>
      <PageHeading title="Pay statements" />
      {user.role === 'admin' ? <PrepareForm onPrepared={list.reload} /> : null}
      {office ? (
        <FilterBar>
          <FilterItem>
            <TextField
              id="statements-month"
              label="Month (empty: all)"
              type="month"
              value={month}
              onChange={(event) => change('month', event.target.value)}
            />
          </FilterItem>
        </FilterBar>
      ) : null}
      <LoadState state={list.state} onRetry={list.retry}>
        {(statements) => <StatementsTable statements={statements} onOpen={(id) => change('statement', id)} />}
      </LoadState>
      {openId ? (
        <LoadState state={one.state} onRetry={one.retry}>
          {(statement) =>
            statement ? (
              <StatementPanel
                statement={statement}
                onConfirmed={() => {
                  one.reload();
                  list.reload();
                }}
              />
            ) : null
          }
        </LoadState>
      ) : null}
    </>
  );
}
