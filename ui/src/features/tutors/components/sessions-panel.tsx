import { useState } from 'react';
import { ErrorAlert } from '../../../components/alert';
import { Button, ButtonRow } from '../../../components/button';
import { LoadState } from '../../../components/load-state';
import { Panel, SectionHeading } from '../../../components/panel';
import { EmptyRow, Table, TableWrap, Td, Th } from '../../../components/table';
import { useCommandIds } from '../../../lib/command-id';
import { errorMessage } from '../../../lib/http';
import { useLoader } from '../../../lib/use-loader';
import { endTutorSessions, fetchTutorSessions, type TutorSession } from '../api';

const when = (iso: string) => new Date(iso).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' });

const loadSessions = (id: string, signal: AbortSignal) => fetchTutorSessions(id, signal);

/** For admins: the tutor's signed-in sessions, each of which (or all) may be ended. */
export function SessionsPanel({ tutorId }: { tutorId: string }) {
  const { state, retry, reload } = useLoader(loadSessions, tutorId);
  const commandIds = useCommandIds();
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);

  const end = async (sessionId?: string) => {
    setBusy(true);
    setFailure(null);
    // Ending one session and ending them all are different actions.
    const action = sessionId ?? 'all';
    try {
      await endTutorSessions(tutorId, { sessionId, commandId: commandIds.idFor(action) });
      commandIds.done(action);
      reload();
    } catch (error) {
      commandIds.done(action, error);
      setFailure(errorMessage(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Panel aria-labelledby="sessions-heading">
      <SectionHeading id="sessions-heading">Signed-in Sessions</SectionHeading>
      <LoadState state={state} onRetry={retry}>
        {(sessions: TutorSession[]) => (
          <>
            <TableWrap>
              <Table>
                <thead>
                  <tr>
                    <Th>Signed in</Th>
                    <Th>Last active</Th>
                    <Th>Browser</Th>
                    <Th>Address</Th>
                    <Th aria-label="Actions" />
                  </tr>
                </thead>
                <tbody>
                  {sessions.length === 0 ? (
                    <tr>
                      <EmptyRow colSpan={5}>No signed-in sessions.</EmptyRow>
                    </tr>
                  ) : (
                    sessions.map((session) => (
                      <tr key={session.id}>
                        <Td nowrap>{when(session.createdAt)}</Td>
                        <Td nowrap>{when(session.lastSeenAt)}</Td>
                        <Td>{session.userAgent ?? ''}</Td>
                        <Td nowrap>{session.address ?? ''}</Td>
                        <Td>
                          <Button type="button" variant="secondary" disabled={busy} onClick={() => end(session.id)}>
                            End
                          </Button>
                        </Td>
                      </tr>
                    ))
                  )}
                </tbody>
              </Table>
            </TableWrap>
            {sessions.length > 1 ? (
              <ButtonRow>
                <Button type="button" variant="secondary" disabled={busy} onClick={() => end()}>
                  End All Sessions
                </Button>
              </ButtonRow>
            ) : null}
          </>
        )}
      </LoadState>
      {failure ? <ErrorAlert>{failure}</ErrorAlert> : null}
    </Panel>
  );
}
