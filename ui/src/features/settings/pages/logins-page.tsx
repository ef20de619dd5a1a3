import styled from '@emotion/styled';
import { useState } from 'react';
import { ErrorAlert } from '../../../components/alert';
import { Button } from '../../../components/button';
import { FormActions } from '../../../components/form-actions';
import { FieldRow, Fieldset, FormPanel } from '../../../components/form-layout';
import { LoadState } from '../../../components/load-state';
import { PageHeading } from '../../../components/page-heading';
import { Select } from '../../../components/select';
import { SettingsNav } from '../../../components/settings-nav';
import { EmptyRow, Table, TableWrap, Td, Th } from '../../../components/table';
import { TextField } from '../../../components/text-field';
import { useCommandIds } from '../../../lib/command-id';
import { useCurrentUser } from '../../../lib/current-user';
import { errorMessage } from '../../../lib/http';
import { useCommandForm } from '../../../lib/use-command-form';
import { useLoader } from '../../../lib/use-loader';
import { required } from '../../../lib/validation';
import {
  addLogin,
  fetchLogins,
  fetchTutorOptions,
  type LoginListItem,
  type LoginsAnswer,
  type NewLogin,
  sendActivationEmail,
  sendPasswordReset,
  setLoginActive,
} from '../api';

/** Below 600 px the page's buttons are 44 px tap targets (WCAG 2.5.5). */
const Page = styled.div({ '@media (max-width: 599.98px)': { '& button': { minHeight: '2.75rem' } } });
const Section = styled.section({ marginTop: '2rem', '& h2': { fontSize: '1.2rem', margin: '0 0 0.75rem' } });
const Actions = styled.div({ display: 'flex', flexWrap: 'wrap', gap: '0.5rem', alignItems: 'center' });
const Note = styled.span(({ theme }) => ({ color: theme.colors.muted, fontSize: '0.9rem' }));
const Notice = styled.p(({ theme }) => ({
  background: theme.colors.rowHover,
  border: `1px solid ${theme.colors.border}`,
  borderRadius: theme.radius,
  padding: '0.75rem 1rem',
}));
const Hint = styled.p(({ theme }) => ({ color: theme.colors.muted, fontSize: '0.9rem', margin: '0 0 1rem' }));

const ROLE_NAMES: Record<LoginListItem['role'], string> = {
  admin: 'Admin',
  partner: 'Partner',
  tutor: 'Tutor',
  auditor: 'Auditor',
};

const loadLogins = (_: 'logins', signal: AbortSignal) => fetchLogins(signal);
const loadTutors = (_: 'tutors', signal: AbortSignal) => fetchTutorOptions(signal);

/** Why a login is offered no password reset: the reset e-mails a link, and only a tutor's login has an address. */
const noResetBecause = (login: LoginListItem) => {
  if (!login.active) return 'Turned off: no password reset';
  if (!login.tutorId) return 'No e-mail address: only logins of tutors have one';
  return 'No reset: this tutor no longer works for the agency';
};

/**
 * One action of the page at a time (a button's command), its outcome said in the page's status
 * line, then the list loaded again. A repeat after an unknown outcome reuses its command id.
 */
function useLoginActions(refresh: () => void) {
  const commandIds = useCommandIds();
  const [busy, setBusy] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const act = async (action: string, send: (commandId: string) => Promise<unknown>, done: string) => {
    setBusy(action);
    setNotice(null);
    setFailure(null);
    try {
      await send(commandIds.idFor(action));
      commandIds.done(action);
      setNotice(done);
      refresh();
    } catch (error) {
      commandIds.done(action, error);
      setFailure(errorMessage(error));
    } finally {
      setBusy(null);
    }
  };
  return { busy, notice, failure, act, say: setNotice };
}

type Acts = ReturnType<typeof useLoginActions>;

function LoginRow({ login, admin, self, acts }: { login: LoginListItem; admin: boolean; self: boolean; acts: Acts }) {
  const [confirming, setConfirming] = useState(false);
  const turn = (active: boolean) => {
    setConfirming(false);
    const done = active
      ? `${login.name}'s login is on again: they can sign in.`
      : `${login.name}'s login is turned off: they cannot sign in, and their sessions have ended.`;
    return acts.act(
      JSON.stringify({ login: login.id, active }),
      (commandId) => setLoginActive(login.id, active, commandId),
      done,
    );
  };
  const reset = () =>
    acts.act(
      JSON.stringify({ reset: login.id }),
      () => sendPasswordReset(login.username),
      `A password reset link was e-mailed to the address on ${login.tutorName ?? login.name}'s tutor record.`,
    );
  return (
    <tr>
      <Td>
        {login.name}
        {self ? ' (you)' : ''}
      </Td>
      <Td>{login.username}</Td>
      <Td>{ROLE_NAMES[login.role]}</Td>
      <Td>{login.tutorName ?? '–'}</Td>
      <Td>{login.active ? 'On' : 'Off'}</Td>
      {admin ? (
        <Td>
          <Actions>
            {login.resetByEmail ? (
              <Button type="button" variant="secondary" disabled={acts.busy !== null} onClick={reset}>
                Send Password Reset
              </Button>
            ) : (
              <Note>{noResetBecause(login)}</Note>
            )}
            {!login.active ? (
              <Button type="button" variant="secondary" disabled={acts.busy !== null} onClick={() => turn(true)}>
                Turn On
              </Button>
            ) : self ? null : confirming ? (
              <>
                <Note role="status">Turn off {login.name}'s login? They will be signed out everywhere.</Note>
                <Button type="button" disabled={acts.busy !== null} onClick={() => turn(false)}>
                  Yes, Turn Off
                </Button>
                <Button type="button" variant="secondary" onClick={() => setConfirming(false)}>
                  Cancel
                </Button>
              </>
            ) : (
              <Button
                type="button"
                variant="secondary"
                disabled={acts.busy !== null}
                onClick={() => setConfirming(true)}
              >
                Turn Off
              </Button>
            )}
          </Actions>
        </Td>
      ) : null}
    </tr>
  );
}

function LoginsTables({ data, admin, acts }: { data: LoginsAnswer; admin: boolean; acts: Acts }) {
  const me = useCurrentUser().id;
  const resend = (tutorId: string, name: string) =>
    acts.act(
      JSON.stringify({ activation: tutorId }),
      (commandId) => sendActivationEmail(tutorId, commandId),
      `An activation e-mail was sent to ${name}.`,
    );
  return (
    <>
      <TableWrap>
        <Table>
          <caption className="visually-hidden">Logins</caption>
          <thead>
            <tr>
              <Th scope="col">Name</Th>
              <Th scope="col">Username</Th>
              <Th scope="col">Role</Th>
              <Th scope="col">Tutor</Th>
              <Th scope="col">Active</Th>
              {admin ? <Th scope="col">Actions</Th> : null}
            </tr>
          </thead>
          <tbody>
            {data.logins.length === 0 ? (
              <tr>
                <EmptyRow colSpan={admin ? 6 : 5}>No logins yet.</EmptyRow>
              </tr>
            ) : (
              data.logins.map((login) => (
                <LoginRow key={login.id} login={login} admin={admin} self={login.id === me} acts={acts} />
              ))
            )}
          </tbody>
        </Table>
      </TableWrap>
      <Section aria-labelledby="awaiting-activation">
        <h2 id="awaiting-activation">Tutors not yet activated</h2>
        {data.awaitingActivation.length === 0 ? (
          <Hint>Every tutor working for the agency has activated their login.</Hint>
        ) : (
          <TableWrap>
            <Table>
              <thead>
                <tr>
                  <Th scope="col">Tutor</Th>
                  <Th scope="col">Username</Th>
                  <Th scope="col">Activation E-mail</Th>
                  {admin ? <Th scope="col">Actions</Th> : null}
                </tr>
              </thead>
              <tbody>
                {data.awaitingActivation.map((tutor) => (
                  <tr key={tutor.tutorId}>
                    <Td>{tutor.name}</Td>
                    <Td>{tutor.username}</Td>
                    <Td>{tutor.activationSent ? 'Sent, not used yet' : 'Not sent, or expired'}</Td>
                    {admin ? (
                      <Td>
                        <Button
                          type="button"
                          variant="secondary"
                          disabled={acts.busy !== null}
                          onClick={() => resend(tutor.tutorId, tutor.name)}
                        >
                          {tutor.activationSent ? 'Resend Activation' : 'Send Activation'}
                        </Button>
                      </Td>
                    ) : null}
                  </tr>
                ))}
              </tbody>
            </Table>
          </TableWrap>
        )}
      </Section>
    </>
  );
}

const EMPTY: NewLogin = { role: 'auditor', name: '', username: '', password: '', tutorId: '' };

function AddLoginForm({ onAdded }: { onAdded: (login: NewLogin) => void }) {
  const tutors = useLoader(loadTutors, 'tutors');
  const { form, onSubmit, failure } = useCommandForm<NewLogin>({
    defaultValues: EMPTY,
    save: async (values, commandId) => {
      await addLogin(values, commandId);
      form.reset(EMPTY);
      onAdded(values);
    },
    fieldName: (field) =>
      ['name', 'username', 'password', 'tutorId', 'role'].includes(field) ? (field as keyof NewLogin) : undefined,
  });
  const {
    register,
    watch,
    formState: { errors, isSubmitting },
  } = form;
  const partner = watch('role') === 'partner';
  const tutorOptions = tutors.state.status === 'loaded' ? tutors.state.data : [];
  return (
    <FormPanel noValidate onSubmit={onSubmit} aria-labelledby="add-login">
      <Fieldset>
        <legend id="add-login">Add Login</legend>
        <Hint>
          A partner acts for a tutor and reads the office's screens; an auditor reads everything and changes nothing.
          Give them the first password yourself: only a tutor's login has an e-mail address for a reset.
        </Hint>
        <FieldRow>
          <Select
            id="login-role"
            label="Role"
            options={[
              { value: 'auditor', label: 'Auditor' },
              { value: 'partner', label: 'Partner' },
            ]}
            {...register('role')}
          />
          {partner ? (
            <Select
              id="login-tutor"
              label="Tutor"
              required
              error={errors.tutorId?.message}
              options={[{ value: '', label: 'Choose a tutor' }, ...tutorOptions]}
              {...register('tutorId', { validate: (value) => !partner || value !== '' || 'Tutor is required' })}
            />
          ) : null}
        </FieldRow>
        <FieldRow>
          <TextField
            id="login-name"
            label="Name"
            required
            autoComplete="off"
            error={errors.name?.message}
            {...register('name', { validate: required('Name is required') })}
          />
          <TextField
            id="login-username"
            label="Username"
            required
            autoComplete="off"
            error={errors.username?.message}
            {...register('username', { validate: required('Username is required') })}
          />
          <TextField
            id="login-password"
            label="First Password"
            type="password"
            required
            autoComplete="new-password"
            error={errors.password?.message}
            {...register('password', {
              validate: (value) =>
                value === ''
                  ? 'Please enter a password'
                  : value.length >= 7 || 'Password must be at least 7 characters',
            })}
          />
        </FieldRow>
      </Fieldset>
      <FormActions
        failure={failure}
        submitting={isSubmitting}
        submitLabel="Add Login"
        onCancel={() => form.reset(EMPTY)}
      />
    </FormPanel>
  );
}

/**
 * settings/logins (admins; auditors read it): every login with its role, tutor and whether it is
 * on; an admin adds a partner or auditor login, e-mails a password reset where the login has an
 * address, turns a login off or on, and sends a tutor who has not activated their login the
 * activation e-mail again.
 */
export function LoginsPage() {
  const admin = useCurrentUser().role === 'admin';
  const { state, retry, refresh } = useLoader(loadLogins, 'logins');
  const acts = useLoginActions(refresh);
  const added = (login: NewLogin) => {
    acts.say(`Login ${login.username} added as ${login.role === 'partner' ? 'a partner' : 'an auditor'}.`);
    refresh();
  };
  return (
    <Page>
      <PageHeading title="Logins" />
      <SettingsNav />
      <div role="status">{acts.notice ? <Notice>{acts.notice}</Notice> : null}</div>
      {acts.failure ? <ErrorAlert>{acts.failure}</ErrorAlert> : null}
      <LoadState state={state} onRetry={retry}>
        {(data) => <LoginsTables data={data} admin={admin} acts={acts} />}
      </LoadState>
      {admin ? (
        <Section>
          <AddLoginForm onAdded={added} />
        </Section>
      ) : null}
    </Page>
  );
}
