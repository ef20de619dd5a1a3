import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeServer, fieldError, navigatedTo, renderScreen } from '../../../testing/component';
import { NewClientPage } from './contact-form-page';

const admin = { id: 'u1', username: 'admin', role: 'admin' as const };
const drawNewClient = () => renderScreen(<NewClientPage />, { path: '/client/new', user: admin });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('New Client (the contact form, built on react-hook-form)', () => {
  it('says what each required field needs, focuses the first, and sends nothing', async () => {
    const server = fakeServer();
    const { user } = drawNewClient();
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(fieldError('First Name')).toBe('First name is required');
    expect(fieldError('Last Name')).toBe('Last name is required');
    expect(fieldError('Address line 1')).toBe('Address is required');
    expect(fieldError('Address line 2')).toBeNull();
    expect(fieldError('Postcode')).toBe('Postcode is required');
    expect(fieldError('Email')).toBe('Email is required');
    expect(fieldError('Phone 1')).toBe('Phone is required');
    expect(fieldError('Phone 2')).toBeNull();
    expect(document.activeElement).toBe(screen.getByLabelText('First Name'));
    expect(server.requests).toEqual([]);
  });

  it('counts a field of spaces as empty', async () => {
    const server = fakeServer();
    const { user } = drawNewClient();
    await user.type(screen.getByLabelText('First Name'), '   ');
    await user.tab();
    expect(fieldError('First Name')).toBe('First name is required');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(server.requests).toEqual([]);
  });

  it('sends the contact trimmed, without blank lines or phones, and opens the new client', async () => {
    const server = fakeServer(() => ({ body: { client: { id: 'client-7' }, contact: {} } }));
    const { user } = drawNewClient();
    await user.type(screen.getByLabelText('First Name'), ' Ada ');
    await user.type(screen.getByLabelText('Last Name'), 'Lovelace');
    await user.type(screen.getByLabelText('Address line 1'), '12 St James’s Square');
    await user.type(screen.getByLabelText('Address line 3'), 'London ');
    await user.type(screen.getByLabelText('Postcode'), 'SW1Y 4JH');
    await user.type(screen.getByLabelText('Email'), 'ada@example.org');
    await user.selectOptions(screen.getByLabelText('Phone 1 type'), 'Home');
    await user.type(screen.getByLabelText('Phone 1'), '020 7946 0000');
    await user.type(screen.getByLabelText('Date of Birth'), '1815-12-10');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await navigatedTo('/client/client-7');
    const [sent, ...more] = server.posts();
    expect(more).toEqual([]);
    expect(sent).toMatchObject({ path: '/api/clients/contact' });
    const { commandId, ...contact } = sent?.body as { commandId: string };
    expect(commandId).toMatch(UUID);
    expect(contact).toEqual({
      firstName: 'Ada',
      lastName: 'Lovelace',
      address: ['12 St James’s Square', 'London'],
      postcode: 'SW1Y 4JH',
      email: 'ada@example.org',
      phone: [{ type: 'Home', number: '020 7946 0000' }],
      dob: '1815-12-10',
    });
  });

  it("puts the server's field messages on their fields and stays on the form", async () => {
    const server = fakeServer(() => ({
      status: 400,
      body: {
        error: {
          code: 'validation',
          message: 'Some fields are not valid',
          fields: { email: 'Email is not an address', phone: 'Phone is too short' },
        },
      },
    }));
    const { user } = drawNewClient();
    await user.type(screen.getByLabelText('First Name'), 'Ada');
    await user.type(screen.getByLabelText('Last Name'), 'Lovelace');
    await user.type(screen.getByLabelText('Address line 1'), '12 St James’s Square');
    await user.type(screen.getByLabelText('Postcode'), 'SW1Y 4JH');
    await user.type(screen.getByLabelText('Email'), 'ada');
    await user.type(screen.getByLabelText('Phone 1'), '1');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Some fields are not valid')).toBeDefined();
    expect(fieldError('Email')).toBe('Email is not an address');
    expect(fieldError('Phone 1')).toBe('Phone is too short');
    expect(document.activeElement).toBe(screen.getByLabelText('Email'));
    expect(server.posts()).toHaveLength(1);
  });
});
