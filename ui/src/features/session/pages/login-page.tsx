import styled from '@emotion/styled';
import { useEffect, useState } from 'react';
import { useForm } from 'react-hook-form';
import { Link, useNavigate } from 'react-router-dom';
import { ErrorAlert } from '../../../components/alert';
import { Button } from '../../../components/button';
import { TextField } from '../../../components/text-field';
import { HttpError } from '../../../lib/http';
import { login } from '../api';
import { CentredPanel } from '../components/centred-panel';

type Credentials = { username: string; password: string };

const Actions = styled.div({ display: 'flex', alignItems: 'center', justifyContent: 'space-between', gap: '1rem' });

function loginFailure(error: unknown): string {
  if (error instanceof HttpError && error.status === 401) return 'Wrong username or password.';
  if (error instanceof HttpError && error.status === 429)
    return 'Too many failed attempts. Please wait a few minutes and try again.';
  return error instanceof Error ? error.message : 'Login failed.';
}

export function LoginPage() {
  const navigate = useNavigate();
  const [failure, setFailure] = useState<string | null>(null);
  const {
    register,
    handleSubmit,
    formState: { errors, isSubmitting },
  } = useForm<Credentials>({ mode: 'onTouched', defaultValues: { username: '', password: '' } });

  useEffect(() => {
    document.title = 'Login · Tutoring Agency';
  }, []);

  const onSubmit = handleSubmit(async (credentials) => {
    setFailure(null);
    try {
      await login(credentials);
      navigate('/', { replace: true });
    } catch (error) {
      console.error('Login failed', error);
      setFailure(loginFailure(error));
    }
  });

  return (
    <CentredPanel title="Login">
      <form noValidate onSubmit={onSubmit}>
        <TextField
          id="username"
          label="Username"
          autoComplete="username"
          required
          error={errors.username?.message}
          {...register('username', { validate: (value) => value.trim() !== '' || 'Username is required' })}
        />
        <TextField
          id="password"
          label="Password"
          type="password"
          autoComplete="current-password"
          required
          error={errors.password?.message}
          {...register('password', { validate: (value) => value !== '' || 'Password is required' })}
        />
        {failure ? <ErrorAlert>{failure}</ErrorAlert> : null}
        <Actions>
          <Button type="submit" disabled={isSubmitting}>
            {isSubmitting ? 'Logging in…' : 'Login'}
          </Button>
          <Link to="/reset">Forgotten your password?</Link>
        </Actions>
      </form>
    </CentredPanel>
  );
}
