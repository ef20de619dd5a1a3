import styled from '@emotion/styled';
import { useMachine } from '@xstate/react';
import { useEffect } from 'react';
import { useForm } from 'react-hook-form';
import { Link } from 'react-router-dom';
import { fromPromise } from 'xstate';
import { ErrorAlert } from '../../../components/alert';
import { Button, ButtonRow } from '../../../components/button';
import { TextField } from '../../../components/text-field';
import { HttpError } from '../../../lib/http';
import { requestPasswordReset } from '../api';
import { CentredPanel } from '../components/centred-panel';
import { RESET_TEXTS, type ResetOutcome, resetMachine, resetScreenState } from '../machines/reset-machine';

const Success = styled.p(({ theme }) => ({
  padding: '0.75rem 1rem',
  borderRadius: theme.radius,
  border: `1px solid ${theme.colors.border}`,
  background: theme.colors.background,
}));

const machine = resetMachine.provide({
  actors: {
    requestReset: fromPromise<ResetOutcome, { username: string }>(async ({ input }) => {
      try {
        const answer = await requestPasswordReset(input.username);
        return answer.success ? 'sent' : 'failed';
      } catch (error) {
        if (error instanceof HttpError && error.status === 429) return 'tooManyAttempts';
        return 'failed';
      }
    }),
  },
});

/** /reset: states 0 entry, 1 success, 2 error, 3 too many attempts; the form shows in 0 and 2. */
export function ResetPage() {
  const [snapshot, send] = useMachine(machine);
  const screen = resetScreenState(snapshot);
  const submitting = snapshot.matches('submitting');
  const {
    register,
    handleSubmit,
    formState: { errors },
  } = useForm<{ username: string }>({ mode: 'onTouched', defaultValues: { username: '' } });

  useEffect(() => {
    document.title = 'Reset Password · Tutoring Agency';
  }, []);

  const onSubmit = handleSubmit((values) => send({ type: 'reset.submit', username: values.username.trim() }));

  return (
    <CentredPanel title="Reset Password">
      <div aria-live="polite">
        {screen === 1 ? <Success role="status">{RESET_TEXTS[1]}</Success> : null}
        {screen === 2 ? <ErrorAlert>{RESET_TEXTS[2]}</ErrorAlert> : null}
        {screen === 3 ? <ErrorAlert>{RESET_TEXTS[3]}</ErrorAlert> : null}
      </div>
      {screen === 0 || screen === 2 ? (
        <form noValidate onSubmit={onSubmit}>
          <TextField
            id="username"
            label="Enter your username or email address"
            autoComplete="username"
            required
            error={errors.username?.message}
            {...register('username', { validate: (value) => value.trim() !== '' || 'Username is required' })}
          />
          <ButtonRow>
            <Button type="submit" disabled={submitting}>
              {submitting ? 'Sending…' : 'Reset'}
            </Button>
            <Link to="/login">Back to login</Link>
          </ButtonRow>
        </form>
      ) : (
        <Link to="/login">Back to login</Link>
      )}
    </CentredPanel>
  );
}
