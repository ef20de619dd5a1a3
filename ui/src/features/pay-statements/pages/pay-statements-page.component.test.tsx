import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeServer, renderScreen } from '../../../testing/component';
import type { PayStatementDetail, PayStatementSummary } from '../api';
import { PayStatementsPage } from './pay-statements-page';

const ada = { id: 'u-ada', username: 'ada', role: 'tutor' as const, tutorId: 't-ada' };
const admin = { id: 'u1', username: 'admin', role: 'admin' as const };

const summary: PayStatementSummary = {
  id: 't-ada-2026-03',
  tutorId: 't-ada',
  tutorName: 'Ada Payee',
  month: '2026-03',
  period: 'March 2026',
  reference: 'PS-ADA-2026-03',
  date: '2026-04-01',
  totalPay: 61.87,
  held: 27.5,
  confirmed: false,
  paid: 0,
  owed: 61.87,
};
const line = {
  lessonId: 'l1',
  date: '2026-03-03',
  child: 'Amy Jones',
  hours: 1.25,
  amount: 41.66,
  share: 7.29,
  pay: 34.37,
  paidBefore: 0,
  removed: false,
  description: '',
};
const detail: PayStatementDetail = {
  ...summary,
  carried: 0,
  lines: [
    { ...line, kind: 'lesson', line: 34.37 },
    { ...line, lessonId: 'l2', kind: 'adjustment', pay: 41.25, paidBefore: 27.5, line: 13.75, child: 'Bo Jones' },
    { ...line, lessonId: 'l3', kind: 'held', line: 0, child: 'Cy Jones' },
  ],
};

const answers = (request: { method: string; path: string }) => {
  if (
    request.method === 'GET' &&
    (request.path === '/api/pay-statements' || request.path.startsWith('/api/pay-statements?'))
  ) {
    return { body: { statements: [summary] } };
  }
  if (request.method === 'GET' && request.path === '/api/pay-statements/t-ada-2026-03')
    return { body: { statement: detail } };
  if (request.method === 'POST') return { body: { statement: { ...summary, confirmed: true } } };
  return undefined;
};

describe('Pay statements', () => {
  it('shows the tutor a statement’s lines and sends their confirmation with a command id', async () => {
    const server = fakeServer(answers);
    const { user } = renderScreen(<PayStatementsPage />, { path: '/invoices/pay-statements', user: ada });
    await user.click(await screen.findByRole('button', { name: 'PS-ADA-2026-03' }));
    const panel = await screen.findByRole('region', { name: 'Pay statement PS-ADA-2026-03' });
    const adjusted = within(panel).getByRole('row', { name: /Bo Jones/ });
    expect(within(adjusted).getByText('Adjustment')).toBeTruthy();
    expect(within(panel).getByRole('row', { name: /Cy Jones/ }).textContent).toContain('held');
    expect(within(panel).getByRole('link', { name: 'PDF of PS-ADA-2026-03' }).getAttribute('href')).toBe(
      '/api/pay-statements/t-ada-2026-03/document.pdf',
    );
    // A tutor prepares nothing: only an admin has that form.
    expect(screen.queryByRole('form', { name: 'Prepare pay statements' })).toBeNull();
    await user.click(within(panel).getByRole('button', { name: 'Confirm statement' }));
    expect(server.posts()).toEqual([
      {
        method: 'POST',
        path: '/api/pay-statements/confirm',
        body: { id: 't-ada-2026-03', commandId: expect.any(String) },
      },
    ]);
  });

  it('lets an admin prepare a month', async () => {
    const server = fakeServer(answers);
    const { user } = renderScreen(<PayStatementsPage />, { path: '/invoices/pay-statements', user: admin });
    const form = await screen.findByRole('form', { name: 'Prepare pay statements' });
    const month = within(form).getByLabelText(/Month to prepare/);
    await user.clear(month);
    await user.type(month, '2026-03');
    await user.click(within(form).getByRole('button', { name: 'Prepare statements' }));
    expect(server.posts()).toEqual([
      { method: 'POST', path: '/api/pay-statements', body: { month: '2026-03', commandId: expect.any(String) } },
    ]);
  });
});
