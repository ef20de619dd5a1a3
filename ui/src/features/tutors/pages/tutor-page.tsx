import type { TutorAccount } from '@agency/domain/tutor/tutor-lifecycle';
import styled from '@emotion/styled';
import { useMachine } from '@xstate/react';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { ErrorAlert } from '../../../components/alert';
import { Button, ButtonLink, ButtonRow } from '../../../components/button';
import { Checkbox } from '../../../components/checkbox';
import { EraseSubject } from '../../../components/erase-subject';
import { HistoryPanel } from '../../../components/history-panel';
import { LoadState } from '../../../components/load-state';
import { PageHeading } from '../../../components/page-heading';
import { Panel, SectionHeading } from '../../../components/panel';
import { useCommandIds } from '../../../lib/command-id';
import { useCurrentUser } from '../../../lib/current-user';
import { errorMessage } from '../../../lib/http';
import { useLoader } from '../../../lib/use-loader';
import { eraseTutor, fetchTutor, sendActivationEmail, setPartner, setTutorActive, type Tutor } from '../api';
import { BankDetailsPanel } from '../components/bank-details-panel';
import { ContactSummary } from '../components/contact-summary';
import { SessionsPanel } from '../components/sessions-panel';
import { StudentsTable } from '../components/students-table';
import { offeredActions, tutorLifecycleMachine } from '../machines/tutor-lifecycle-machine';

// Side by side only where both tables have room for their five columns.
const Columns = styled.div({
  display: 'grid',
  gap: '1.5rem',
  gridTemplateColumns: 'repeat(auto-fit, minmax(min(100%, 34rem), 1fr))',
});
const Note = styled.p(({ theme }) => ({ color: theme.colors.muted, margin: '0.75rem 0 0' }));
const Sent = styled.p(({ theme }) => ({ margin: 0, fontWeight: 600, color: theme.colors.text }));
const Toggles = styled.div({ display: 'flex', gap: '2rem', flexWrap: 'wrap', marginTop: '1rem' });

const loadTutor = (id: string, signal: AbortSignal) => fetchTutor(id, signal);

const accountOf = (tutor: Tutor): TutorAccount =>
  tutor.accountActive ? 'activated' : tutor.activationSent ? 'activationSent' : 'notActivated';

function AdminActions({ tutor, onChanged }: { tutor: Tutor; onChanged: () => void }) {
  const [snapshot, send] = useMachine(tutorLifecycleMachine, {
    input: {
      active: tutor.active,
      account: accountOf(tutor),
      currentStudents: tutor.currentStudents.length,
      partner: tutor.accountRole === 'partner',
    },
  });
  const offered = offeredActions(snapshot);
  const active = snapshot.matches({ status: 'active' });
  const commandIds = useCommandIds();
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);

  /** `action` names what the call sends: each has its own command id, kept for its retry only. */
  const act = async (action: string, call: (commandId: string) => Promise<unknown>, after: () => void) => {
    setBusy(true);
    setFailure(null);
    try {
      await call(commandIds.idFor(action));
      commandIds.done(action);
      after();
      onChanged();
    } catch (error) {
      commandIds.done(action, error);
      setFailure(errorMessage(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Panel aria-labelledby="admin-heading">
      <SectionHeading id="admin-heading">Admin</SectionHeading>
      <ButtonRow style={{ marginTop: 0 }}>
        <ButtonLink to={`/engagement/new/${tutor.id}`}>Add Student</ButtonLink>
        <ButtonLink variant="secondary" to={`/tutor/edit/${tutor.id}`}>
          Edit Contact
        </ButtonLink>
        {offered.includes('terminate') ? (
          <ButtonLink variant="secondary" to={`/tutor/terminate/${tutor.id}`}>
            Terminate Tutor
          </ButtonLink>
        ) : null}
        {offered.includes('reactivate') ? (
          <ButtonLink variant="secondary" to={`/tutor/reactivate/${tutor.id}`}>
            Re-activate Tutor
          </ButtonLink>
        ) : null}
        {offered.includes('sendActivation') ? (
          <Button
            type="button"
            variant="secondary"
            disabled={busy}
            onClick={() =>
              act(
                'activation',
                (id) => sendActivationEmail(tutor.id, { commandId: id }),
                () => send({ type: 'tutor.sendActivation' }),
              )
            }
          >
            {busy ? 'Sending…' : 'Send Activation Email'}
          </Button>
        ) : null}
        {snapshot.matches({ account: 'activationSent' }) ? (
          <Sent role="status">Activation email has been sent</Sent>
        ) : null}
      </ButtonRow>
      {active && !offered.includes('terminate') ? (
        <Note>A tutor with current students cannot be terminated: end their engagements first.</Note>
      ) : null}
      <Toggles>
        <Checkbox
          id="tutor-active"
          label="Active"
          checked={active}
          disabled={busy || !offered.includes(active ? 'terminate' : 'reactivate')}
          onChange={(event) => {
            const next = event.target.checked;
            act(
              `active:${next}`,
              (id) => setTutorActive(tutor.id, { active: next, commandId: id }),
              () => send({ type: next ? 'tutor.reactivate' : 'tutor.terminate' }),
            );
          }}
        />
        {offered.includes('grantPartner') ? (
          <Checkbox
            id="tutor-partner"
            label="Partner"
            checked={snapshot.context.partner}
            disabled={busy}
            onChange={(event) => {
              const partner = event.target.checked;
              act(
                `partner:${partner}`,
                (id) => setPartner(tutor.id, { partner, commandId: id }),
                () => send({ type: 'tutor.grantPartner', partner }),
              );
            }}
          />
        ) : null}
      </Toggles>
      {failure ? <ErrorAlert>{failure}</ErrorAlert> : null}
    </Panel>
  );
}

function TutorDetail({ tutor, onChanged }: { tutor: Tutor; onChanged: () => void }) {
  const user = useCurrentUser();
  const navigate = useNavigate();
  const open = (engagementId: string) => navigate(`/engagement/detail/${tutor.id}/${engagementId}`);
  const account = tutor.accountActive
    ? `Activated${tutor.accountRole === 'partner' ? ' (partner)' : ''}`
    : 'Not activated';
  return (
    <>
      <Panel aria-label="Tutor details">
        <ContactSummary tutor={tutor}>
          <dt>Username</dt>
          <dd>{tutor.username}</dd>
          <dt>Invoice Prefix</dt>
          <dd>{tutor.invoicePrefix}</dd>
          <dt>Status</dt>
          <dd>{tutor.active ? 'Active' : 'Inactive'}</dd>
          <dt>Account</dt>
          <dd>{account}</dd>
        </ContactSummary>
      </Panel>
      {user.role === 'admin' ? (
        <AdminActions
          key={`${tutor.active}-${tutor.accountActive}-${tutor.activationSent}-${tutor.accountRole}-${tutor.currentStudents.length}`}
          tutor={tutor}
          onChanged={onChanged}
        />
      ) : null}
      {user.role === 'admin' && tutor.accountActive ? (
        // Keyed by what ends sessions on the server (termination, role change): reloaded after them.
        <SessionsPanel key={`${tutor.active}-${tutor.accountRole}`} tutorId={tutor.id} />
      ) : null}
      {user.role === 'admin' ? <BankDetailsPanel tutorId={tutor.id} /> : null}
      {user.role === 'admin' && !tutor.active ? (
        // A tutor who has left (terminated) may have their personal data erased.
        <Panel aria-labelledby="personal-data-heading">
          <SectionHeading id="personal-data-heading">Personal Data</SectionHeading>
          <EraseSubject
            subject="tutor"
            kept="Kept: lessons, invoices, payments, totals and references, without personal data; the username only as a hash, so it stays taken. The login and its sessions are deleted."
            erase={(body) => eraseTutor(tutor.id, body)}
            onErased={onChanged}
          />
        </Panel>
      ) : null}
      <Columns>
        <section aria-labelledby="current-heading">
          <SectionHeading id="current-heading">Current Students</SectionHeading>
          <StudentsTable
            tutorId={tutor.id}
            students={tutor.currentStudents}
            empty="No current students."
            onOpen={open}
          />
        </section>
        <section aria-labelledby="former-heading">
          <SectionHeading id="former-heading">Former Students</SectionHeading>
          <StudentsTable
            tutorId={tutor.id}
            students={tutor.formerStudents}
            empty="No former students."
            ended
            onOpen={open}
          />
        </section>
      </Columns>
    </>
  );
}

/** tutor/{tutorId}. */
export function TutorPage() {
  const { tutorId = '' } = useParams();
  const { state, retry, reload } = useLoader(loadTutor, tutorId);
  const title = state.status === 'loaded' ? state.data.name : 'Tutor';
  return (
    <>
      <PageHeading title={title}>
        <Link to="/tutors">Back to tutors</Link>
      </PageHeading>
      <LoadState state={state} onRetry={retry}>
        {(tutor) => <TutorDetail tutor={tutor} onChanged={reload} />}
      </LoadState>
      <HistoryPanel streamId={`tutor-${tutorId}`} />
    </>
  );
}
