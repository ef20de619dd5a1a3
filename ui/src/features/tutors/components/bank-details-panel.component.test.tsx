import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeServer, renderScreen } from '../../../testing/component';
import { BankDetailsPanel } from './bank-details-panel';

const admin = { id: 'u1', username: 'admin', role: 'admin' as const };
const details = { accountName: 'Ann Smith', sortCode: '01-23-45', accountNumber: '00123456', rollNumber: null };

describe('the tutor page’s Bank Details panel', () => {
  it('shows the account number masked until asked', async () => {
    fakeServer(() => ({ body: { tutorId: 't1', bankDetails: details, erased: false } }));
    const { user } = renderScreen(<BankDetailsPanel tutorId="t1" />, { user: admin });
    expect(await screen.findByText('****3456')).toBeTruthy();
    expect(screen.queryByText('00123456')).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Show account number' }));
    expect(screen.getByText('00123456')).toBeTruthy();
  });

  it('records new details as typed, and says when a tutor’s were erased', async () => {
    const server = fakeServer((request) =>
      request.method === 'GET'
        ? { body: { tutorId: 't1', bankDetails: null, erased: false } }
        : { body: { tutorId: 't1' } },
    );
    const { user } = renderScreen(<BankDetailsPanel tutorId="t1" />, { user: admin });
    await user.click(await screen.findByRole('button', { name: 'Add bank details' }));
    await user.type(screen.getByLabelText(/Account name/), 'Ann Smith');
    await user.type(screen.getByLabelText(/Sort code/), '01-23-45');
    await user.type(screen.getByLabelText(/Account number/), '00123456');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await screen.findByRole('button', { name: 'Add bank details' });
    const [sent, ...more] = server.posts();
    expect(more).toEqual([]);
    const { commandId, ...body } = sent?.body as { commandId: string };
    expect(sent?.path).toBe('/api/tutors/bank-details/t1');
    expect(body).toEqual({
      accountName: 'Ann Smith',
      sortCode: '01-23-45',
      accountNumber: '00123456',
      rollNumber: null,
    });

    fakeServer(() => ({ body: { tutorId: 't2', bankDetails: null, erased: true } }));
    renderScreen(<BankDetailsPanel tutorId="t2" />, { user: admin });
    expect(await screen.findByText(/Erased with the tutor's personal data/)).toBeTruthy();
  });
});
