import { managesAgency, readsAsAdmin } from '@agency/contracts/role-rules';
import { useState } from 'react';
import { ErrorAlert } from '../../../components/alert';
import { ButtonRow } from '../../../components/button';
import { Checkbox } from '../../../components/checkbox';
import { ConfirmAction } from '../../../components/confirm-action';
import { LoadState } from '../../../components/load-state';
import { Panel, SectionHeading } from '../../../components/panel';
import { EmptyRow, Table, TableWrap, Td, Th, Tr } from '../../../components/table';
import { useCommandIds } from '../../../lib/command-id';
import { useCurrentUser } from '../../../lib/current-user';
import { errorMessage } from '../../../lib/http';
import { useLoader } from '../../../lib/use-loader';
import {
  decideEmailChange,
  decideErasureRequest,
  endFamilySessions,
  type FamilyAccessAnswer,
  fetchFamilyAccess,
  setFamilyAccess,
} from '../api';

const when = (iso: string) => new Date(iso).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' });

const lastSeen = (sessions: FamilyAccessAnswer['contacts'][number]['sessions']) =>
  sessions.reduce<string | null>((latest, s) => (!latest || s.lastSeenAt > latest ? s.lastSeenAt : latest), null);

const ERASURE_STATE = { none: 'None', pending: 'Waiting for a decision', approved: 'Approved', declined: 'Declined' };

const loadAccess = (clientId: string, signal: AbortSignal) => fetchFamilyAccess(clientId, signal);

/**
 * The family's logins on its page: who can sign in, their sessions, and its request for erasure.
 * An admin changes them; an auditor reads them; anyone else is shown nothing (the server refuses them).
 */
export function FamilyAccessSection({ clientId }: { clientId: string }) {
  const user = useCurrentUser();
  if (!readsAsAdmin(user.role)) return null;
  return <FamilyAccessPanel clientId={clientId} admin={managesAgency(user.role)} />;
}

function FamilyAccessPanel({ clientId, admin }: { clientId: string; admin: boolean }) {
  const { state, retry, reload } = useLoader(loadAccess, clientId);
  const commandIds = useCommandIds();
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);

  // Each action (and each contact's) has its own command id, kept across a retry of the same action.
  const run = async (action: string, send: (commandId: string) => Promise<unknown>) => {
    setBusy(true);
    setFailure(null);
    try {
      await send(commandIds.idFor(action));
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
    <Panel aria-labelledby="family-access-heading">
      <SectionHeading id="family-access-heading">Family Access</SectionHeading>
      <LoadState state={state} onRetry={retry}>
        {(access: FamilyAccessAnswer) => (
          <>
            <TableWrap>
              <Table>
                <thead>
                  <tr>
                    <Th scope="col">Contact</Th>
                    <Th scope="col">Email</Th>
                    <Th scope="col">Access</Th>
                    <Th scope="col">Open sessions</Th>
                    <Th scope="col">Last seen</Th>
                    {admin ? (
                      <Th scope="col">
                        <span className="visually-hidden">Actions</span>
                      </Th>
                    ) : null}
                  </tr>
                </thead>
                <tbody>
                  {access.contacts.length === 0 ? (
                    <tr>
                      <EmptyRow colSpan={admin ? 6 : 5}>No contact has an e-mail address to sign in with.</EmptyRow>
                    </tr>
                  ) : (
                    access.contacts.map((contact) => {
                      const name = `${contact.firstName} ${contact.lastName}`;
                      const seen = lastSeen(contact.sessions);
                      return (
                        <Tr key={contact.id}>
                          <Td>{name}</Td>
                          <Td>
                            {contact.email}
                            {contact.emailChange ? (
                              <EmailChange
                                name={name}
                                email={contact.email}
                                asked={contact.emailChange}
                                admin={admin}
                                busy={busy}
                                decide={(approve) =>
                                  run(`email:${contact.id}:${approve}`, (commandId) =>
                                    decideEmailChange(contact.id, { approve, commandId }),
                                  )
                                }
                              />
                            ) : null}
                          </Td>
                          <Td>
                            {admin ? (
                              <Checkbox
                                id={`family-access-${contact.id}`}
                                label={`Can sign in: ${name}`}
                                checked={contact.familyAccess}
                                disabled={busy}
                                onChange={(event) => {
                                  const active = event.target.checked;
                                  run(`access:${contact.id}:${active}`, (commandId) =>
                                    setFamilyAccess(contact.id, { active, commandId }),
                                  );
                                }}
                              />
                            ) : contact.familyAccess ? (
                              'On'
                            ) : (
                              'Off'
                            )}
                          </Td>
                          <Td numeric>{contact.sessions.length}</Td>
                          <Td nowrap>{seen ? when(seen) : '—'}</Td>
                          {admin ? (
                            <Td>
                              {contact.sessions.length > 0 ? (
                                <ConfirmAction
                                  label={`End sessions of ${name}`}
                                  title={`End ${name}'s sessions?`}
                                  confirmLabel="End Sessions"
                                  disabled={busy}
                                  onConfirm={() =>
                                    run(`end:${contact.id}`, (commandId) =>
                                      endFamilySessions(contact.id, { commandId }),
                                    )
                                  }
                                >
                                  <p>
                                    Every browser where {name} is signed in is signed out at once. They can sign in
                                    again with a new link while their access is on.
                                  </p>
                                </ConfirmAction>
                              ) : null}
                            </Td>
                          ) : null}
                        </Tr>
                      );
                    })
                  )}
                </tbody>
              </Table>
            </TableWrap>
            <p>
              <strong>Request for erasure:</strong> {ERASURE_STATE[access.erasureRequest]}
            </p>
            {admin && access.erasureRequest === 'pending' ? (
              <ButtonRow>
                <ConfirmAction
                  label="Approve Erasure Request"
                  title="Approve the family's request for erasure?"
                  confirmLabel="Approve"
                  disabled={busy}
                  onConfirm={() =>
                    run('erasure:approve', (commandId) => decideErasureRequest(clientId, { approve: true, commandId }))
                  }
                >
                  <p>
                    The decision is recorded. The family's data is erased with Erase under Personal Data, once it has no
                    ongoing engagements.
                  </p>
                </ConfirmAction>
                <ConfirmAction
                  label="Decline Erasure Request"
                  title="Decline the family's request for erasure?"
                  confirmLabel="Decline"
                  disabled={busy}
                  onConfirm={() =>
                    run('erasure:decline', (commandId) => decideErasureRequest(clientId, { approve: false, commandId }))
                  }
                >
                  <p>The decision is recorded and the family's data is kept.</p>
                </ConfirmAction>
              </ButtonRow>
            ) : null}
          </>
        )}
      </LoadState>
      {failure ? <ErrorAlert>{failure}</ErrorAlert> : null}
    </Panel>
  );
}

/** The family's asked-for e-mail address: it becomes the contact's (and its sign-in address) only once confirmed. */
function EmailChange({
  name,
  email,
  asked,
  admin,
  busy,
  decide,
}: {
  name: string;
  email: string;
  asked: string;
  admin: boolean;
  busy: boolean;
  decide: (approve: boolean) => void;
}) {
  return (
    <div>
      <p>Asked to change to {asked}</p>
      {admin ? (
        <ButtonRow>
          <ConfirmAction
            label={`Confirm new e-mail of ${name}`}
            title={`Change ${name}'s e-mail address?`}
            confirmLabel="Confirm"
            disabled={busy}
            onConfirm={() => decide(true)}
          >
            <p>
              {name}'s address becomes {asked} instead of {email}: their sign-in links and the agency's mail go there.
            </p>
          </ConfirmAction>
          <ConfirmAction
            label={`Decline new e-mail of ${name}`}
            title={`Decline ${name}'s new e-mail address?`}
            confirmLabel="Decline"
            disabled={busy}
            onConfirm={() => decide(false)}
          >
            <p>
              {name} keeps the address {email}.
            </p>
          </ConfirmAction>
        </ButtonRow>
      ) : null}
    </div>
  );
}
