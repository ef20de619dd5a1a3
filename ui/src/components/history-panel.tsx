import type { RecordedEventView } from '@agency/contracts';
import { mayReadHistoryOf } from '@agency/contracts/role-rules';
import styled from '@emotion/styled';
import { useState } from 'react';
import { useCurrentUser } from '../lib/current-user';
import { fetchHistory } from '../lib/history';
import { useLoader } from '../lib/use-loader';
import { LoadState } from './load-state';
import { Panel } from './panel';
import { Table, TableWrap, Td, Th } from './table';

const Summary = styled.summary({ fontSize: '1.25rem', fontWeight: 700, cursor: 'pointer' });
const Muted = styled.span(({ theme }) => ({ color: theme.colors.muted, fontSize: '0.85rem' }));

/** Events as an auditor reads them: when, who, what changed, and the action (correlation) they belong to. */
export function EventsTable({ events, caption }: { events: readonly RecordedEventView[]; caption: string }) {
  return (
    <TableWrap>
      <Table>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <Th scope="col">When</Th>
            <Th scope="col">Who</Th>
            <Th scope="col">What</Th>
            <Th scope="col">Action</Th>
          </tr>
        </thead>
        <tbody>
          {events.map((event) => (
            <tr key={`${event.streamId}/${event.revision}`}>
              <Td nowrap>{event.when}</Td>
              <Td>
                {event.who.name} <Muted>({event.who.role})</Muted>
              </Td>
              <Td>{event.what}</Td>
              <Td>
                <Muted title={`correlation ${event.correlationId}`}>{event.correlationId.slice(0, 8)}</Muted>
              </Td>
            </tr>
          ))}
        </tbody>
      </Table>
    </TableWrap>
  );
}

const loadHistory = (streamId: string, signal: AbortSignal) => fetchHistory(streamId, signal);

function StreamHistory({ streamId }: { streamId: string }) {
  const { state, retry } = useLoader(loadHistory, streamId);
  return (
    <LoadState state={state} onRetry={retry}>
      {(history) => <EventsTable events={history.events} caption="History of changes" />}
    </LoadState>
  );
}

/**
 * The History panel of a detail screen: every event of the entity's stream, read from the event
 * store when opened. Shown only to those who may read that stream's history.
 */
export function HistoryPanel({ streamId }: { streamId: string }) {
  const user = useCurrentUser();
  const [open, setOpen] = useState(false);
  if (!mayReadHistoryOf(user.role, streamId)) return null;
  return (
    <Panel aria-label="History of changes">
      <details onToggle={(event) => setOpen(event.currentTarget.open)}>
        <Summary>History of changes</Summary>
        {open ? <StreamHistory streamId={streamId} /> : null}
      </details>
    </Panel>
  );
}
