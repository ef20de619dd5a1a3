import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeServer, fieldError, navigatedTo, renderScreen } from '../../../testing/component';
import { LoginPage } from './login-page';

const drawLogin = () => renderScreen(<LoginPage />, { path: '/login' });

describe('the login form', () => {
  it('says which field is missing and sends nothing', async () => {
    const server = fakeServer();
    const { user } = drawLogin();
    await user.type(screen.getByLabelText('Username'), '   ');
    await user.click(screen.getByRole('button', { name: 'Login' }));
    expect(fieldError('Username')).toBe('Username is required');
    expect(fieldError('Password')).toBe('Password is required');
    expect(server.requests).toEqual([]);
  });

  it('sends the username and password as typed and goes to the home page', async () => {
    const server = fakeServer(() => ({ body: { user: { id: 'u1', username: 'ann', role: 'admin' } } }));
    const { user } = drawLogin();
    await user.type(screen.getByLabelText('Username'), 'ann');
    await user.type(screen.getByLabelText('Password'), 'correct horse');
    await user.click(screen.getByRole('button', { name: 'Login' }));
    await navigatedTo('/');
    expect(server.posts()).toEqual([
      { method: 'POST', path: '/auth/local', body: { username: 'ann', password: 'correct horse' } },
    ]);
  });

  it('says the credentials were wrong on a 401 and stays on the form', async () => {
    fakeServer(() => ({ status: 401, body: { error: { code: 'unauthorized', message: 'Unauthorized' } } }));
    const { user } = drawLogin();
    await user.type(screen.getByLabelText('Username'), 'ann');
    await user.type(screen.getByLabelText('Password'), 'wrong');
    await user.keyboard('{Enter}');
    expect(await screen.findByText('Wrong username or password.')).toBeDefined();
    expect(screen.getByRole('button', { name: 'Login' })).toHaveProperty('disabled', false);
  });

  it('says to wait after too many attempts (429)', async () => {
    fakeServer(() => ({ status: 429, body: { error: { code: 'too_many_attempts', message: 'Slow down' } } }));
    const { user } = drawLogin();
    await user.type(screen.getByLabelText('Username'), 'ann');
    await user.type(screen.getByLabelText('Password'), 'wrong{Enter}');
    expect(await screen.findByText('Too many failed attempts. Please wait a few minutes and try again.')).toBeDefined();
  });
});
