import { managesAgency, readsAsAdmin, readsEveryTutor } from '@agency/contracts/role-rules';
import type { Role } from '../lib/current-user';

export type MenuItem = {
  label: string;
  route: string;
  /**
   * Who sees it (everyone when absent): the role rule the server reads the screen's data by
   * (contracts/src/role-rules.ts), so a menu never offers a screen its answer refuses.
   */
  may?: (role: Role) => boolean;
  hidden?: boolean;
  children?: MenuItem[];
};

export type MenuEntry = { label: string; route: string; children: MenuEntry[] };

export const menu: MenuItem[] = [
  { label: 'Clients', route: 'clients' },
  { label: 'Tutors', route: 'tutors', may: readsEveryTutor },
  { label: 'Lessons', route: 'lessons' },
  {
    label: 'Invoices',
    route: 'invoices',
    children: [
      { label: 'Invoices', route: '' },
      // Paying the tutors and the bank file: admins alone, as the bank details it pays into.
      { label: 'Pay Runs', route: 'pay-runs', may: managesAgency },
    ],
  },
  { label: 'Consultations', route: 'consultations', may: readsAsAdmin },
  { label: 'Workshops', route: 'workshops', may: readsAsAdmin },
  // Families' invoices (consultations and workshops), credit notes and payments: the office's ledger.
  { label: 'Family Invoices', route: 'family-invoices', may: readsEveryTutor },
  { label: 'Resources', route: 'resources', may: readsAsAdmin },
  {
    label: 'Reports',
    route: 'reports',
    may: readsEveryTutor,
    children: [
      { label: 'Invoices', route: 'invoices' },
      { label: 'Workshops', route: 'workshops', may: readsAsAdmin },
      // What each family owes by age, and the period's documents and payments for the accountant.
      { label: 'Aged Debt', route: 'aged-debt' },
      { label: "Accountant's Export", route: 'accounting-export', may: readsAsAdmin },
    ],
  },
  // The agency's own details (name, address, bank account, notice, invoice prefix, terms): an auditor reads them.
  { label: 'Settings', route: 'settings', may: readsAsAdmin },
  // Who did what, when, on which entity: read from the event store.
  { label: 'Activity', route: 'activity', may: readsAsAdmin },
];

/** Joins route segments into an absolute path: ('reports', 'invoices') → '/reports/invoices'. */
export function joinRoute(...parts: string[]): string {
  const segments = parts.flatMap((part) => part.split('/')).filter((segment) => segment !== '');
  return `/${segments.join('/')}`;
}

/** The menu a role sees, with every route absolute (a sub-item's route is under its parent's). */
export function menuForRole(items: MenuItem[], role: Role, parent = ''): MenuEntry[] {
  return items
    .filter((item) => !item.hidden && (!item.may || item.may(role)))
    .map((item) => {
      const route = joinRoute(parent, item.route);
      const children = menuForRole(item.children ?? [], role, route);
      // A group left with only its own screen (Invoices, to whoever may not see Pay Runs) is that screen's link.
      const only = children.length === 1 && children[0]?.route === route;
      return { label: item.label, route, children: only ? [] : children };
    });
}
