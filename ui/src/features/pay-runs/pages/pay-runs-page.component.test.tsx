import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeServer, renderScreen } from '../../../testing/component';
import type { PayRunAnswer } from '../api';
import { PayRunsPage } from './pay-runs-page';

const admin = { id: 'u1', username: 'admin', role: 'admin' as const };

const run: PayRunAnswer = {
  payRunId: '2026-10',
  month: '2026-10',
  preparedOn: '2026-11-02',
  paidOn: null,
  total: 92.09,
  lines: [
    {
      tutorId: 't1',
      tutorName: 'Ann Smith',
      amount: 92.09,
      reference: 'PAY 2026-10',
      account: '****3456',
      blocked: null,
      paidElsewhere: false,
      statements: [{ statementId: 't1-2026-10', month: '2026-10', reference: 'PS-1', owed: 92.09 }],
    },
    {
      tutorId: 't2',
      tutorName: 'Bo Jones',
      amount: 22.5,
      reference: 'PS-2',
      account: null,
      blocked: 'no-bank-details',
      paidElsewhere: false,
      statements: [{ statementId: 't2-2026-10', month: '2026-10', reference: 'PS-2', owed: 22.5 }],
    },
  ],
  waiting: [
    { tutorId: 't3', tutorName: 'Di Waits', statementId: 't3-2026-10', month: '2026-10', reference: 'PS-3', owed: 7.5 },
  ],
};

const answers = (request: { method: string; path: string }) => {
  if (request.method === 'GET' && request.path === '/api/pay-runs') {
    return {
      body: {
        runs: [
          {
            payRunId: '2026-10',
            month: '2026-10',
            preparedOn: '2026-11-02',
            paidOn: null,
            total: 92.09,
            tutors: 1,
            blocked: 1,
          },
        ],
      },
    };
  }
  if (request.method === 'GET' && request.path === '/api/pay-runs/2026-10') return { body: run };
  if (request.method === 'POST') return { body: { payRun: { month: '2026-10' } } };
  return undefined;
};

describe('Pay Runs', () => {
  it('shows a run’s lines, who cannot be paid and who waits, and links its bank file', async () => {
    fakeServer(answers);
    const { user } = renderScreen(<PayRunsPage />, { path: '/invoices/pay-runs', user: admin });
    await user.click(await screen.findByRole('button', { name: '2026-10' }));
    const lines = await screen.findByRole('table', { name: 'The tutors this run pays' });
    const ann = within(lines).getByRole('row', { name: /Ann Smith/ });
    expect(within(ann).getByText('****3456')).toBeTruthy();
    expect(within(ann).getByText('In the bank file')).toBeTruthy();
    const bo = within(lines).getByRole('row', { name: /Bo Jones/ });
    expect(within(bo).getByText('Cannot pay: no bank details')).toBeTruthy();
    expect(screen.getByText('Di Waits')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Download bank file (CSV)' }).getAttribute('href')).toBe(
      '/api/pay-runs/2026-10/bank-file.csv',
    );
  });

  it('prepares the chosen month and marks a run paid on the day given, each with a command id', async () => {
    const server = fakeServer(answers);
    const { user } = renderScreen(<PayRunsPage />, {
      path: '/invoices/pay-runs',
      at: '/invoices/pay-runs?month=2026-10',
      user: admin,
    });
    const month = screen.getByLabelText('Month');
    await user.clear(month);
    await user.type(month, '2026-10');
    await user.click(screen.getByRole('button', { name: 'Prepare pay run' }));
    const paidOn = await screen.findByLabelText('Paid on');
    await user.clear(paidOn);
    await user.type(paidOn, '2026-11-05');
    await user.click(screen.getByRole('button', { name: 'Mark paid' }));
    await screen.findAllByRole('row');
    const posts = server.posts().map(({ path, body }) => {
      const { commandId, ...rest } = body as { commandId: string };
      expect(commandId).toMatch(/^[0-9a-f-]{36}$/);
      return { path, body: rest };
    });
    expect(posts).toEqual([
      { path: '/api/pay-runs', body: { month: '2026-10' } },
      // The statements of the lines the bank file pays (Bo's has no bank details): a run prepared again since is refused.
      { path: '/api/pay-runs/paid/2026-10', body: { date: '2026-11-05', statements: ['t1-2026-10'] } },
    ]);
  });
});
