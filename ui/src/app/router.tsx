import type { ComponentType } from 'react';
import { createBrowserRouter, Navigate, type RouteObject } from 'react-router-dom';
import type { AdminOnlyHandle } from '../components/admin-only';
import { askCurrentUserEarly } from '../features/session/api';
import { NotFoundPage } from './not-found-page';

/**
 * A screen loaded with its route, every one of them: the first load is React, the router and
 * the styles, and each page brings only its own screen (the sign-in page no schema library,
 * form library or state machines it does not use; the 150 KB first-load budget, e2e/first-load).
 */
function screen<M extends Record<string, unknown>>(load: () => Promise<M>, name: keyof M & string) {
  return async () => ({ Component: (await load())[name] as ComponentType });
}

const session = {
  login: () => import('../features/session/pages/login-page'),
  reset: () => import('../features/session/pages/reset-page'),
  newPassword: () => import('../features/session/pages/new-password-page'),
  activate: () => import('../features/session/pages/activate-page'),
};
const clients = {
  list: () => import('../features/clients/pages/clients-page'),
  client: () => import('../features/clients/pages/client-page'),
  contactForm: () => import('../features/clients/pages/contact-form-page'),
  childForm: () => import('../features/clients/pages/child-form-page'),
};
const signedInShell = () => {
  askCurrentUserEarly();
  return import('./signed-in-shell');
};

/** Shown while the first page's chunks arrive: index.html's own Loading…, kept until the page draws. */
const FirstLoad = () => (
  <p className="first-load" role="status">
    Loading…
  </p>
);

const engagementForms = () => import('../features/engagements/pages/engagement-form-pages');
const tutorStatus = () => import('../features/tutors/pages/tutor-status-pages');
const lessonsGrid = () => import('../features/lessons/pages/add-lessons-page');
const invoiceConfirmation = () => import('../features/invoices/pages/invoice-confirmation-page');

const workshops = () => import('../features/workshops/pages/event-form-page');
const booking = {
  list: () => import('../features/booking/pages/book-page'),
  form: () => import('../features/booking/pages/book-event-page'),
  confirm: () => import('../features/booking/pages/confirm-booking-page'),
};

const family = {
  signIn: () => import('../features/family/pages/sign-in-page'),
  link: () => import('../features/family/pages/sign-in-link-page'),
  home: () => import('../features/family/pages/home-page'),
  lessons: () => import('../features/family/pages/lessons-page'),
  invoices: () => import('../features/family/pages/invoices-page'),
  bookings: () => import('../features/family/pages/bookings-page'),
  myData: () => import('../features/family/pages/my-data-page'),
};

const pages: RouteObject[] = [
  { path: '/login', lazy: screen(session.login, 'LoginPage') },
  // Families' own pages (docs/family-access.md): outside the staff shell, with their own frame.
  { path: '/family', lazy: screen(family.signIn, 'FamilySignInPage') },
  { path: '/family/sign-in/:token', lazy: screen(family.link, 'FamilySignInLinkPage') },
  { path: '/family/home', lazy: screen(family.home, 'FamilyHomePage') },
  { path: '/family/lessons', lazy: screen(family.lessons, 'FamilyLessonsPage') },
  { path: '/family/invoices', lazy: screen(family.invoices, 'FamilyInvoicesPage') },
  { path: '/family/bookings', lazy: screen(family.bookings, 'FamilyBookingsPage') },
  { path: '/family/my-data', lazy: screen(family.myData, 'FamilyMyDataPage') },
  { path: '/reset', lazy: screen(session.reset, 'ResetPage') },
  { path: '/reset/:token', lazy: screen(session.newPassword, 'NewPasswordPage') },
  { path: '/activate/:code', lazy: screen(session.activate, 'ActivatePage') },
  // The public booking pages: open to everyone.
  { path: '/book', lazy: screen(booking.list, 'BookPage') },
  { path: '/book/:eventId', lazy: screen(booking.form, 'BookEventPage') },
  { path: '/book/confirm/:token', lazy: screen(booking.confirm, 'ConfirmBookingPage') },
  { path: '/', element: <Navigate to="/clients" replace /> },
  {
    lazy: screen(signedInShell, 'SignedInShell'),
    children: [
      // The screens that change the agency's records: one guard for all of them (components/admin-only.tsx).
      {
        lazy: screen(() => import('../components/admin-only'), 'AdminOnlyPages'),
        children: [
          { path: 'client/new', lazy: screen(clients.contactForm, 'NewClientPage') },
          { path: 'contact/edit/:id', lazy: screen(clients.contactForm, 'EditContactPage') },
          { path: 'contact/new/:id', lazy: screen(clients.contactForm, 'NewContactPage') },
          { path: 'child/edit/:id', lazy: screen(clients.childForm, 'EditChildPage') },
          { path: 'child/new/:id', lazy: screen(clients.childForm, 'AddChildPage') },
          { path: 'tutor/new', lazy: screen(() => import('../features/tutors/pages/new-tutor-page'), 'NewTutorPage') },
          {
            path: 'tutor/edit/:tutorId',
            lazy: screen(() => import('../features/tutors/pages/edit-tutor-page'), 'EditTutorPage'),
          },
          { path: 'tutor/terminate/:tutorId', lazy: screen(tutorStatus, 'TerminateTutorPage') },
          { path: 'tutor/reactivate/:tutorId', lazy: screen(tutorStatus, 'ReactivateTutorPage') },
          { path: 'engagement/new/:tutorId', lazy: screen(engagementForms, 'AddEngagementPage') },
          { path: 'engagement/edit/:tutorId/:engagementId', lazy: screen(engagementForms, 'EditEngagementPage') },
          { path: 'engagement/rates/:tutorId/:engagementId', lazy: screen(engagementForms, 'ChangeRatesPage') },
          { path: 'engagement/subjects/:tutorId/:engagementId', lazy: screen(engagementForms, 'ChangeSubjectsPage') },
          {
            path: 'engagement/terminate/:tutorId/:engagementId',
            lazy: screen(engagementForms, 'TerminateEngagementPage'),
          },
          {
            path: 'consultations/new',
            lazy: screen(() => import('../features/consultations/pages/new-consultation-page'), 'NewConsultationPage'),
          },
          { path: 'workshops/new', lazy: screen(workshops, 'NewEventPage') },
          { path: 'workshops/edit/:eventId', lazy: screen(workshops, 'EditEventPage') },
          {
            path: 'workshops/book/:eventId',
            handle: { refusal: "Only an admin can book on a parent's behalf." } satisfies AdminOnlyHandle,
            lazy: screen(() => import('../features/workshops/pages/book-for-parent-page'), 'BookForParentPage'),
          },
          {
            path: 'workshops/invoice',
            lazy: screen(() => import('../features/workshops/pages/workshop-invoice-page'), 'WorkshopInvoicePage'),
          },
          {
            path: 'settings/import',
            handle: { refusal: 'Only an admin imports families, tutors and engagements.' } satisfies AdminOnlyHandle,
            lazy: screen(() => import('../features/import/pages/import-page'), 'ImportPage'),
          },
        ],
      },
      { path: 'dashboard', lazy: screen(() => import('../features/dashboard/pages/dashboard-page'), 'DashboardPage') },
      { path: 'clients', lazy: screen(clients.list, 'ClientsPage') },
      { path: 'client/:clientId', lazy: screen(clients.client, 'ClientPage') },
      { path: 'tutors', lazy: screen(() => import('../features/tutors/pages/tutors-page'), 'TutorsPage') },
      { path: 'tutor/:tutorId', lazy: screen(() => import('../features/tutors/pages/tutor-page'), 'TutorPage') },
      {
        path: 'engagement/detail/:tutorId/:engagementId',
        lazy: screen(() => import('../features/engagements/pages/engagement-detail-page'), 'EngagementDetailPage'),
      },
      { path: 'lessons', lazy: screen(() => import('../features/lessons/pages/lessons-page'), 'LessonsPage') },
      { path: 'lessons/add', lazy: screen(lessonsGrid, 'AddLessonsPage') },
      { path: 'lessons/add/:tutorId', lazy: screen(lessonsGrid, 'AddLessonsPage') },
      { path: 'invoices', lazy: screen(() => import('../features/invoices/pages/invoices-page'), 'InvoicesPage') },
      {
        path: 'invoices/pay-runs',
        lazy: screen(() => import('../features/pay-runs/pages/pay-runs-page'), 'PayRunsPage'),
      },
      {
        path: 'invoices/pay-statements',
        lazy: screen(() => import('../features/pay-statements/pages/pay-statements-page'), 'PayStatementsPage'),
      },
      { path: 'invoice/generate', lazy: screen(invoiceConfirmation, 'InvoiceConfirmationPage') },
      { path: 'invoice/generate/:tutorId', lazy: screen(invoiceConfirmation, 'InvoiceConfirmationPage') },
      {
        path: 'invoice/trace/:invoiceId',
        lazy: screen(() => import('../features/audit/pages/invoice-trace-page'), 'InvoiceTracePage'),
      },
      { path: 'activity', lazy: screen(() => import('../features/audit/pages/activity-page'), 'ActivityPage') },
      {
        path: 'reports/invoices',
        lazy: screen(() => import('../features/reports/pages/invoice-status-page'), 'InvoiceStatusPage'),
      },
      {
        path: 'family-invoices',
        lazy: screen(() => import('../features/family-invoices/pages/family-invoices-page'), 'FamilyInvoicesPage'),
      },
      {
        path: 'consultations',
        lazy: screen(() => import('../features/consultations/pages/consultations-page'), 'ConsultationsPage'),
      },
      { path: 'settings', lazy: screen(() => import('../features/settings/pages/settings-page'), 'SettingsPage') },
      { path: 'settings/logins', lazy: screen(() => import('../features/settings/pages/logins-page'), 'LoginsPage') },
      {
        path: 'settings/reminders',
        lazy: screen(() => import('../features/reminders/pages/reminders-page'), 'RemindersPage'),
      },
      {
        path: 'reports/aged-debt',
        lazy: screen(() => import('../features/aged-debt/pages/aged-debt-page'), 'AgedDebtPage'),
      },
      {
        path: 'settings/money-model',
        lazy: screen(() => import('../features/money-model/pages/money-model-page'), 'MoneyModelPage'),
      },
      {
        path: 'reports/accounting-export',
        lazy: screen(
          () => import('../features/accounting-export/pages/accounting-export-page'),
          'AccountingExportPage',
        ),
      },
      { path: 'workshops', lazy: screen(() => import('../features/workshops/pages/workshops-page'), 'WorkshopsPage') },
      {
        path: 'workshops/:eventId',
        lazy: screen(() => import('../features/workshops/pages/event-registrations-page'), 'EventRegistrationsPage'),
      },
      {
        path: 'workshops/:eventId/:registrationId',
        lazy: screen(() => import('../features/workshops/pages/registration-page'), 'RegistrationPage'),
      },
      {
        path: 'reports/workshops',
        lazy: screen(() => import('../features/workshops/pages/workshops-report-page'), 'WorkshopsReportPage'),
      },
      { path: 'resources', lazy: screen(() => import('../features/resources/pages/resources-page'), 'ResourcesPage') },
      { path: '*', element: <NotFoundPage /> },
    ],
  },
];

export const routes: RouteObject[] = [{ HydrateFallback: FirstLoad, children: pages }];

export const createRouter = () => createBrowserRouter(routes);
