import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeServer, renderScreen } from '../../../testing/component';
import type { FamilyLedgerAnswer, LessonInvoiceAnswer } from '../api';
import { FamilyInvoicesPage } from './family-invoices-page';

const admin = { id: 'u1', username: 'admin', role: 'admin' as const };
const partner = { id: 'u2', username: 'pat', role: 'partner' as const };

const ledger: FamilyLedgerAnswer = {
  entries: [
    {
      kind: 'invoice',
      id: 'inv-3',
      date: '2026-04-01',
      reference: 'OTA00003',
      invoiceId: 'inv-3',
      invoiceReference: 'OTA00003',
      clientId: 'c1',
      family: 'Parent Mix',
      billedFor: 'lessons',
      amount: 54.18,
      state: 'unpaid',
      owed: 54.18,
    },
  ],
  totals: { invoiced: 54.18, credited: 0, paid: 0, owed: 54.18 },
  total: 1,
  nextCursor: null,
};

const lines: LessonInvoiceAnswer = {
  id: 'inv-3',
  reference: 'OTA00003',
  month: '2026-03',
  lines: [
    {
      kind: 'tuition',
      lessonId: 'l-1',
      date: '2026-03-03',
      child: 'Ann Mix',
      tutor: 'Tina Teach',
      hours: 1,
      rate: 30.1,
      description: 'Tuition, 1 h at £30.10/h',
      amount: 30.1,
      vat: 6.02,
    },
    {
      kind: 'adjustment',
      lessonId: 'l-0',
      date: '2026-02-17',
      child: 'Ann Mix',
      tutor: 'Tina Teach',
      hours: 0.5,
      rate: 30.1,
      description: 'Adjustment: lesson of 2026-02-17 changed',
      amount: -15.05,
      vat: -3.01,
    },
  ],
  net: 15.05,
  vat: 3.01,
  total: 18.06,
  tutorBilled: [],
};

const answers = (request: { method: string; path: string }) => {
  if (request.path.startsWith('/api/family-invoices?')) return { body: ledger };
  if (request.path.startsWith('/api/clients?')) return { body: { clients: [], total: 0, nextCursor: null } };
  if (request.path === '/api/family-invoices/lines/inv-3') return { body: lines };
  if (request.path === '/api/family-invoices/lesson-billing') {
    return { body: { month: '2026-03', requestId: 'r1', underWay: false } };
  }
  return undefined;
};

describe('Family Invoices: lessons', () => {
  it('bills a month (admins) with a command id, and shows a lessons invoice’s lines, adjustments and VAT', async () => {
    const server = fakeServer(answers);
    const { user } = renderScreen(<FamilyInvoicesPage />, { path: '/family-invoices', user: admin });
    const month = screen.getByLabelText('Month (yyyy-mm)');
    await user.clear(month);
    await user.type(month, '2026-03');
    await user.click(screen.getByRole('button', { name: 'Bill lessons' }));
    expect(await screen.findByText(/2026-03 is billed/)).toBeTruthy();
    const [post] = server.posts();
    expect(post?.path).toBe('/api/family-invoices/lesson-billing');
    expect(post?.body).toMatchObject({ month: '2026-03', commandId: expect.stringMatching(/^[0-9a-f-]{36}$/) });

    await user.click(await screen.findByRole('button', { name: 'Lines' }));
    const table = await screen.findByRole('table', { name: 'Lines of invoice OTA00003' });
    const adjustment = within(table).getByRole('row', { name: /Adjustment: lesson of 2026-02-17 changed/ });
    expect(within(adjustment).getByText('Ann Mix')).toBeTruthy();
    expect(within(adjustment).getByText('-15.05')).toBeTruthy();
    expect(within(adjustment).getByText('-3.01')).toBeTruthy();
    expect(within(table).getByTestId('lessons-net').textContent).toBe('15.05');
    expect(within(table).getByTestId('lessons-vat').textContent).toBe('3.01 / 18.06');
    expect(screen.getByRole('button', { name: 'Credit what is owed back' })).toBeTruthy();
  });

  it('offers neither billing nor a credit to a partner, who still reads the lines', async () => {
    fakeServer(answers);
    const { user } = renderScreen(<FamilyInvoicesPage />, { path: '/family-invoices', user: partner });
    await user.click(await screen.findByRole('button', { name: 'Lines' }));
    await screen.findByRole('table', { name: 'Lines of invoice OTA00003' });
    expect(screen.queryByRole('button', { name: 'Bill lessons' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Credit what is owed back' })).toBeNull();
  });
});
