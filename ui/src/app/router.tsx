import type { ComponentType } from 'react';
import { createBrowserRouter, Navigate, type RouteObject } from 'react-router-dom';
import { AddChildPage, EditChildPage } from '../features/clients/pages/child-form-page';
import { ClientPage } from '../features/clients/pages/client-page';
import { ClientsPage } from '../features/clients/pages/clients-page';
import { EditContactPage, NewClientPage, NewContactPage } from '../features/clients/pages/contact-form-page';
import { ActivatePage } from '../features/session/pages/activate-page';
import { LoginPage } from '../features/session/pages/login-page';
import { NewPasswordPage } from '../features/session/pages/new-password-page';
import { ResetPage } from '../features/session/pages/reset-page';
import { NotFoundPage } from './not-found-page';
import { SignedInShell } from './signed-in-shell';

/**
 * A screen loaded with its route: the sign-in and clients screens come with the first load,
 * the other areas only when someone opens them.
 */
function screen<M extends Record<string, unknown>>(load: () => Promise<M>, name: keyof M & string) {
  return async () => ({ Component: (await load())[name] as ComponentType });
}

const engagementForms = () => import('../features/engagements/pages/engagement-form-pages');
const tutorStatus = () => import('../features/tutors/pages/tutor-status-pages');
const lessonsGrid = () => import('../features/lessons/pages/add-lessons-page');
const invoiceConfirmation = () => import('../features/invoices/pages/invoice-confirmation-page');

const workshops = () => import('../features/workshops/pages/event-form-page');
const booking = {
  list: () => import('../features/booking/pages/book-page'),
  form: () => import('../features/booking/pages/book-event-page'),
};

export const routes: RouteObject[] = [
  { path: '/login', element: <LoginPage /> },
  { path: '/reset', element: <ResetPage /> },
  { path: '/reset/:token', element: <NewPasswordPage /> },
  { path: '/activate/:code', element: <ActivatePage /> },
  // The public booking pages: open to everyone (issue 15).
  { path: '/book', lazy: screen(booking.list, 'BookPage') },
  { path: '/book/:eventId', lazy: screen(booking.form, 'BookEventPage') },
  { path: '/', element: <Navigate to="/clients" replace /> },
  {
    element: <SignedInShell />,
    children: [
      { path: 'dashboard', lazy: screen(() => import('../features/dashboard/pages/dashboard-page'), 'DashboardPage') },
      { path: 'clients', element: <ClientsPage /> },
      { path: 'client/new', element: <NewClientPage /> },
      { path: 'client/:clientId', element: <ClientPage /> },
      { path: 'contact/edit/:id', element: <EditContactPage /> },
      { path: 'contact/new/:id', element: <NewContactPage /> },
      { path: 'child/edit/:id', element: <EditChildPage /> },
      { path: 'child/new/:id', element: <AddChildPage /> },
      { path: 'tutors', lazy: screen(() => import('../features/tutors/pages/tutors-page'), 'TutorsPage') },
      { path: 'tutor/new', lazy: screen(() => import('../features/tutors/pages/new-tutor-page'), 'NewTutorPage') },
      {
        path: 'tutor/edit/:tutorId',
        lazy: screen(() => import('../features/tutors/pages/edit-tutor-page'), 'EditTutorPage'),
      },
      { path: 'tutor/:tutorId', lazy: screen(() => import('../features/tutors/pages/tutor-page'), 'TutorPage') },
      { path: 'tutor/terminate/:tutorId', lazy: screen(tutorStatus, 'TerminateTutorPage') },
      { path: 'tutor/reactivate/:tutorId', lazy: screen(tutorStatus, 'ReactivateTutorPage') },
      { path: 'engagement/new/:tutorId', lazy: screen(engagementForms, 'AddEngagementPage') },
      {
        path: 'engagement/detail/:tutorId/:engagementId',
        lazy: screen(() => import('../features/engagements/pages/engagement-detail-page'), 'EngagementDetailPage'),
      },
      { path: 'engagement/edit/:tutorId/:engagementId', lazy: screen(engagementForms, 'EditEngagementPage') },
      { path: 'engagement/rates/:tutorId/:engagementId', lazy: screen(engagementForms, 'ChangeRatesPage') },
      { path: 'engagement/subjects/:tutorId/:engagementId', lazy: screen(engagementForms, 'ChangeSubjectsPage') },
      { path: 'engagement/terminate/:tutorId/:engagementId', lazy: screen(engagementForms, 'TerminateEngagementPage') },
      { path: 'lessons', lazy: screen(() => import('../features/lessons/pages/lessons-page'), 'LessonsPage') },
      { path: 'lessons/add', lazy: screen(lessonsGrid, 'AddLessonsPage') },
      { path: 'lessons/add/:tutorId', lazy: screen(lessonsGrid, 'AddLessonsPage') },
      { path: 'invoices', lazy: screen(() => import('../features/invoices/pages/invoices-page'), 'InvoicesPage') },
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
        path: 'consultations',
        lazy: screen(() => import('../features/consultations/pages/consultations-page'), 'ConsultationsPage'),
      },
      {
        path: 'consultations/new',
        lazy: screen(() => import('../features/consultations/pages/new-consultation-page'), 'NewConsultationPage'),
      },
      { path: 'settings', lazy: screen(() => import('../features/settings/pages/settings-page'), 'SettingsPage') },
      { path: 'workshops', lazy: screen(() => import('../features/workshops/pages/workshops-page'), 'WorkshopsPage') },
      { path: 'workshops/new', lazy: screen(workshops, 'NewEventPage') },
      { path: 'workshops/edit/:eventId', lazy: screen(workshops, 'EditEventPage') },
      {
        path: 'workshops/invoice',
        lazy: screen(() => import('../features/workshops/pages/workshop-invoice-page'), 'WorkshopInvoicePage'),
      },
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

export const createRouter = () => createBrowserRouter(routes);
