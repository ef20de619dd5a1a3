import type { Role } from '../lib/current-user';

export type MenuItem = {
  label: string;
  route: string;
  /** Who sees it; everyone when absent. */
  roles?: Role[];
  hidden?: boolean;
  children?: MenuItem[];
};

export type MenuEntry = { label: string; route: string; children: MenuEntry[] };

export const menu: MenuItem[] = [
  { label: 'Clients', route: 'clients' },
  { label: 'Tutors', route: 'tutors', roles: ['admin', 'partner', 'auditor'] },
  { label: 'Lessons', route: 'lessons' },
  { label: 'Invoices', route: 'invoices' },
  { label: 'Consultations', route: 'consultations', roles: ['admin', 'auditor'] },
  { label: 'Workshops', route: 'workshops', roles: ['admin', 'auditor'] },
  // Families' invoices (consultations and workshops), credit notes and payments: the office's ledger.
  { label: 'Family Invoices', route: 'family-invoices', roles: ['admin', 'partner', 'auditor'] },
  { label: 'Resources', route: 'resources', roles: ['admin', 'auditor'] },
  {
    label: 'Reports',
    route: 'reports',
    roles: ['admin', 'partner', 'auditor'],
    children: [
      { label: 'Invoices', route: 'invoices' },
      { label: 'Workshops', route: 'workshops' },
    ],
  },
  // The agency's own details (name, address, bank account, notice, invoice prefix, terms).
  { label: 'Settings', route: 'settings', roles: ['admin', 'auditor'] },
  // Who did what, when, on which entity: read from the event store.
  { label: 'Activity', route: 'activity', roles: ['admin', 'auditor'] },
];

/** Joins route segments into an absolute path: ('reports', 'invoices') → '/reports/invoices'. */
export function joinRoute(...parts: string[]): string {
  const segments = parts.flatMap((part) => part.split('/')).filter((segment) => segment !== '');
  return `/${segments.join('/')}`;
}

/** The menu a role sees, with every route absolute (a sub-item's route is under its parent's). */
export function menuForRole(items: MenuItem[], role: Role, parent = ''): MenuEntry[] {
  return items
    .filter((item) => !item.hidden && (!item.roles || item.roles.includes(role)))
    .map((item) => {
      const route = joinRoute(parent, item.route);
      return { label: item.label, route, children: menuForRole(item.children ?? [], role, route) };
    });
}
