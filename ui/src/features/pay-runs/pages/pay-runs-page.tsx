import styled from '@emotion/styled';
import dayjs from 'dayjs';
import { useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { ErrorAlert } from '../../../components/alert';
import { Button } from '../../../components/button';
import { FieldRow, FormPanel } from '../../../components/form-layout';
import { LoadState } from '../../../components/load-state';
import { PageHeading } from '../../../components/page-heading';
import { Panel, SectionHeading } from '../../../components/panel';
import { EmptyRow, Table, TableWrap, Td, Th, Tr } from '../../../components/table';
import { TextField } from '../../../components/text-field';
import { useCommandIds } from '../../../lib/command-id';
import { formatDate, formatMoney } from '../../../lib/format';
import { errorMessage } from '../../../lib/http';
import { useLiveRefresh } from '../../../lib/live-updates';
import { useLoader } from '../../../lib/use-loader';
import { bankFileUrl, fetchPayRun, fetchPayRuns, markPayRunPaid, type PayRunAnswer, preparePayRun } from '../api';

const Note = styled.p(({ theme }) => ({ color: theme.colors.muted, margin: '0 0 1rem', maxWidth: '48rem' }));
const Download = styled.a(({ theme }) => ({ color: theme.colors.primary, fontWeight: 600 }));
const Actions = styled.div({
  display: 'flex',
  gap: '1rem',
  alignItems: 'flex-end',
  flexWrap: 'wrap',
  margin: '0 0 1rem',
});
const Select = styled.button(({ theme }) => ({
  background: 'none',
  border: 'none',
  padding: 0,
  color: theme.colors.primary,
  fontWeight: 600,
  cursor: 'pointer',
  textDecoration: 'underline',
}));

const BLOCKED: Record<string, string> = {
  'no-bank-details': 'Cannot pay: no bank details',
  'bank-details-erased': 'Cannot pay: bank details erased',
};

/** Sends a command once per action: the same action retried after a failure keeps its id. */
function useCommand<A extends unknown[]>(send: (commandId: string, ...args: A) => Promise<unknown>, done: () => void) {
  const ids = useCommandIds();
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async (action: string, ...args: A) => {
    setFailure(null);
    setBusy(true);
    try {
      await send(ids.idFor(action), ...args);
      ids.done(action);
      done();
    } catch (error) {
      ids.done(action, error);
      setFailure(errorMessage(error));
    } finally {
      setBusy(false);
    }
  };
  return { run, failure, busy };
}

function PayRunLines({ run }: { run: PayRunAnswer }) {
  return (
    <TableWrap>
      <Table>
        <caption className="visually-hidden">The tutors this run pays</caption>
        <thead>
          <tr>
            <Th scope="col">Tutor</Th>
            <Th scope="col">Statements</Th>
            <Th scope="col">Account</Th>
            <Th scope="col">Reference</Th>
            <Th scope="col">Amount</Th>
            <Th scope="col">Status</Th>
          </tr>
        </thead>
        <tbody>
          {run.lines.length === 0 ? (
            <tr>
              <EmptyRow colSpan={6}>Nobody to pay: no confirmed pay statement is owed</EmptyRow>
            </tr>
          ) : (
            run.lines.map((line) => (
              <Tr key={line.tutorId}>
                <Td>{line.tutorName}</Td>
                <Td>
                  {line.statements
                    .map((statement) => `${statement.reference} (${formatMoney(statement.owed)})`)
                    .join(', ')}
                </Td>
                <Td nowrap>{line.account ?? ''}</Td>
                <Td nowrap>{line.reference}</Td>
                <Td numeric>{formatMoney(line.amount)}</Td>
                <Td>
                  {line.blocked
                    ? BLOCKED[line.blocked]
                    : run.paidOn
                      ? 'Paid'
                      : line.paidElsewhere
                        ? 'Paid elsewhere since: prepare the run again'
                        : 'In the bank file'}
                </Td>
              </Tr>
            ))
          )}
        </tbody>
      </Table>
    </TableWrap>
  );
}

function Waiting({ run }: { run: PayRunAnswer }) {
  if (run.waiting.length === 0) return null;
  return (
    <>
      <SectionHeading as="h3">Waiting for the tutor's confirmation (not in this run)</SectionHeading>
      <TableWrap>
        <Table>
          <thead>
            <tr>
              <Th scope="col">Tutor</Th>
              <Th scope="col">Statement</Th>
              <Th scope="col">Owed</Th>
            </tr>
          </thead>
          <tbody>
            {run.waiting.map((statement) => (
              <Tr key={statement.statementId}>
                <Td>{statement.tutorName}</Td>
                <Td>{statement.reference}</Td>
                <Td numeric>{formatMoney(statement.owed)}</Td>
              </Tr>
            ))}
          </tbody>
        </Table>
      </TableWrap>
    </>
  );
}

const loadRun = (month: string, signal: AbortSignal) => fetchPayRun(month, signal);

/** The statements the bank file shown pays: marking the run paid names them, so a run prepared again since is refused. */
const payableStatements = (run: PayRunAnswer) =>
  run.lines.filter((line) => line.blocked === null).flatMap((line) => line.statements.map((s) => s.statementId));

function PayRunDetail({ month, onChanged }: { month: string; onChanged: () => void }) {
  const run = useLoader(loadRun, month);
  const [date, setDate] = useState(dayjs().format('YYYY-MM-DD'));
  const paid = useCommand(
    (commandId, day: string, statements: string[]) => markPayRunPaid(month, { date: day, commandId, statements }),
    () => {
      run.refresh();
      onChanged();
    },
  );
  return (
    <Panel aria-labelledby="pay-run-heading">
      <SectionHeading id="pay-run-heading">Pay run {month}</SectionHeading>
      <LoadState state={run.state} onRetry={run.retry}>
        {(answer) => (
          <>
            <Note>
              Prepared {formatDate(answer.preparedOn)}
              {answer.paidOn ? `, paid ${formatDate(answer.paidOn)}` : ''}. The bank file pays{' '}
              {formatMoney(answer.total)}.
            </Note>
            <Actions>
              <Download href={bankFileUrl(month)} download>
                Download bank file (CSV)
              </Download>
              {answer.paidOn ? null : (
                <>
                  <TextField
                    id="paidOn"
                    type="date"
                    label="Paid on"
                    value={date}
                    onChange={(event) => setDate(event.target.value)}
                  />
                  <Button
                    type="button"
                    disabled={paid.busy}
                    onClick={() => paid.run(`paid-${month}-${date}`, date, payableStatements(answer))}
                  >
                    Mark paid
                  </Button>
                </>
              )}
            </Actions>
            {paid.failure ? <ErrorAlert>{paid.failure}</ErrorAlert> : null}
            <PayRunLines run={answer} />
            <Waiting run={answer} />
          </>
        )}
      </LoadState>
    </Panel>
  );
}

const loadRuns = (_: 'runs', signal: AbortSignal) => fetchPayRuns(signal);

/**
 * invoices/pay-runs (admins): prepare a month's pay run from the tutors' confirmed pay statements,
 * see who it pays and who it cannot, download the bank file, and mark it paid.
 */
export function PayRunsPage() {
  const runs = useLoader(loadRuns, 'runs');
  useLiveRefresh(['pay-runs'], runs.refresh);
  const [search, setSearch] = useSearchParams();
  const selected = search.get('month');
  const [month, setMonth] = useState(dayjs().subtract(1, 'month').format('YYYY-MM'));
  const prepare = useCommand(
    (commandId, chosen: string) => preparePayRun({ month: chosen, commandId }),
    () => {
      runs.refresh();
      setSearch({ month });
    },
  );
  return (
    <>
      <PageHeading title="Pay Runs" />
      <FormPanel
        aria-label="Prepare a pay run"
        onSubmit={(event) => {
          event.preventDefault();
          prepare.run(`prepare-${month}`, month);
        }}
      >
        <Note>
          A month's run pays each tutor their confirmed pay statements of that month and before that are still owed. A
          tutor without bank details is listed and left out of the bank file; prepare the run again after adding them.
        </Note>
        <FieldRow>
          <TextField
            id="month"
            type="month"
            label="Month"
            value={month}
            onChange={(event) => setMonth(event.target.value)}
          />
        </FieldRow>
        {prepare.failure ? <ErrorAlert>{prepare.failure}</ErrorAlert> : null}
        <Button type="submit" disabled={prepare.busy}>
          Prepare pay run
        </Button>
      </FormPanel>
      <LoadState state={runs.state} onRetry={runs.retry}>
        {(answer) => (
          <TableWrap>
            <Table>
              <caption className="visually-hidden">Pay runs</caption>
              <thead>
                <tr>
                  <Th scope="col">Month</Th>
                  <Th scope="col">Prepared</Th>
                  <Th scope="col">Paid</Th>
                  <Th scope="col">Tutors paid</Th>
                  <Th scope="col">Cannot pay</Th>
                  <Th scope="col">Total</Th>
                </tr>
              </thead>
              <tbody>
                {answer.runs.length === 0 ? (
                  <tr>
                    <EmptyRow colSpan={6}>No pay run yet</EmptyRow>
                  </tr>
                ) : (
                  answer.runs.map((run) => (
                    <Tr key={run.payRunId}>
                      <Td>
                        <Select type="button" onClick={() => setSearch({ month: run.month })}>
                          {run.month}
                        </Select>
                      </Td>
                      <Td nowrap>{formatDate(run.preparedOn)}</Td>
                      <Td nowrap>{run.paidOn ? formatDate(run.paidOn) : 'Not yet'}</Td>
                      <Td numeric>{run.tutors}</Td>
                      <Td numeric>{run.blocked}</Td>
                      <Td numeric>{formatMoney(run.total)}</Td>
                    </Tr>
                  ))
                )}
              </tbody>
            </Table>
          </TableWrap>
        )}
      </LoadState>
      {selected ? <PayRunDetail key={selected} month={selected} onChanged={runs.refresh} /> : null}
    </>
  );
}
