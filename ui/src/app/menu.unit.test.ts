import { describe, expect, it } from 'vitest';
import type { Role } from '../lib/current-user';
import { joinRoute, menu, menuForRole } from './menu';

const labels = (role: Role) => menuForRole(menu, role).map((item) => item.label);

describe('menu by role', () => {
  it('gives an admin every item', () => {
    expect(labels('admin')).toEqual([
      'Clients',
      'Tutors',
      'Lessons',
      'Invoices',
      'Consultations',
      'Workshops',
      'Family Invoices',
      'Resources',
      'Reports',
      'Settings',
      'Activity',
    ]);
  });

  it('gives a partner clients, tutors, lessons, invoices, family invoices and reports', () => {
    expect(labels('partner')).toEqual(['Clients', 'Tutors', 'Lessons', 'Invoices', 'Family Invoices', 'Reports']);
  });

  it('offers a partner the invoice status and aged-debt reports: the workshops report and the export are read by admins and auditors', () => {
    const reports = menuForRole(menu, 'partner').find((item) => item.label === 'Reports')!;
    expect(reports.children.map((item) => item.route)).toEqual(['/reports/invoices', '/reports/aged-debt']);
    const auditorReports = menuForRole(menu, 'auditor').find((item) => item.label === 'Reports')!;
    expect(auditorReports.children.map((item) => item.route)).toEqual([
      '/reports/invoices',
      '/reports/workshops',
      '/reports/aged-debt',
      '/reports/accounting-export',
    ]);
  });

  it('gives an auditor every item an admin has (the screens have no buttons that change anything)', () => {
    expect(labels('auditor')).toEqual(labels('admin'));
  });

  it('gives a tutor clients, lessons and invoices', () => {
    expect(labels('tutor')).toEqual(['Clients', 'Lessons', 'Invoices']);
  });

  it('puts sub-item routes under the parent route', () => {
    const reports = menuForRole(menu, 'admin').find((item) => item.label === 'Reports')!;
    expect(reports.route).toBe('/reports');
    expect(reports.children).toEqual([
      { label: 'Invoices', route: '/reports/invoices', children: [] },
      { label: 'Workshops', route: '/reports/workshops', children: [] },
      { label: 'Aged Debt', route: '/reports/aged-debt', children: [] },
      { label: "Accountant's Export", route: '/reports/accounting-export', children: [] },
    ]);
  });

  it('leaves out hidden items and hidden sub-items', () => {
    const items = menuForRole(
      [
        { label: 'Shown', route: 'shown', children: [{ label: 'Secret', route: 'secret', hidden: true }] },
        { label: 'Hidden', route: 'hidden', hidden: true },
      ],
      'tutor',
    );
    expect(items).toEqual([{ label: 'Shown', route: '/shown', children: [] }]);
  });

  it('joins routes without doubled or missing slashes', () => {
    expect(joinRoute('/reports/', '/invoices')).toBe('/reports/invoices');
    expect(joinRoute('', 'clients')).toBe('/clients');
  });

  it('offers Pay Runs under Invoices to admins alone; to everyone else Invoices stays one link', () => {
    const invoices = (role: Role) => menuForRole(menu, role).find((item) => item.label === 'Invoices')!;
    expect(invoices('admin').children.map((item) => item.route)).toEqual(['/invoices', '/invoices/pay-runs']);
    for (const role of ['auditor', 'partner', 'tutor'] as const) {
      expect(invoices(role)).toEqual({ label: 'Invoices', route: '/invoices', children: [] });
    }
  });
});
