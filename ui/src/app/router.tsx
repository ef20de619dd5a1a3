import { createBrowserRouter, Navigate, type RouteObject } from 'react-router-dom';
import { AddChildPage, EditChildPage } from '../features/clients/pages/child-form-page';
import { ClientPage } from '../features/clients/pages/client-page';
import { ClientsPage } from '../features/clients/pages/clients-page';
import { EditContactPage, NewClientPage, NewContactPage } from '../features/clients/pages/contact-form-page';
import { EngagementDetailPage } from '../features/engagements/pages/engagement-detail-page';
import {
  AddEngagementPage,
  ChangeRatesPage,
  ChangeSubjectsPage,
  EditEngagementPage,
  TerminateEngagementPage,
} from '../features/engagements/pages/engagement-form-pages';
import { InvoiceConfirmationPage } from '../features/invoices/pages/invoice-confirmation-page';
import { InvoicesPage } from '../features/invoices/pages/invoices-page';
import { AddLessonsPage } from '../features/lessons/pages/add-lessons-page';
import { LessonsPage } from '../features/lessons/pages/lessons-page';
import { InvoiceStatusPage } from '../features/reports/pages/invoice-status-page';
import { ActivatePage } from '../features/session/pages/activate-page';
import { LoginPage } from '../features/session/pages/login-page';
import { NewPasswordPage } from '../features/session/pages/new-password-page';
import { ResetPage } from '../features/session/pages/reset-page';
import { NewTutorPage } from '../features/tutors/pages/new-tutor-page';
import { TutorPage } from '../features/tutors/pages/tutor-page';
import { ReactivateTutorPage, TerminateTutorPage } from '../features/tutors/pages/tutor-status-pages';
import { TutorsPage } from '../features/tutors/pages/tutors-page';
import { PlaceholderPage } from './placeholder-page';
import { SignedInShell } from './signed-in-shell';

/** Screens of the spec's route table not built yet: path → heading. */
const placeholders: [path: string, title: string][] = [
  ['consultations', 'Consultations'],
  ['consultations/new', 'New Consultation'],
  ['workshops', 'Workshops'],
  ['workshops/invoice', 'Workshop Invoice'],
  ['workshops/:eventId', 'Workshop'],
  ['workshops/:eventId/:registrationId', 'Registration'],
  ['reports/workshops', 'Workshops Report'],
  ['resources', 'Resources'],
];

export const routes: RouteObject[] = [
  { path: '/login', element: <LoginPage /> },
  { path: '/reset', element: <ResetPage /> },
  { path: '/reset/:token', element: <NewPasswordPage /> },
  { path: '/activate/:code', element: <ActivatePage /> },
  { path: '/', element: <Navigate to="/clients" replace /> },
  {
    element: <SignedInShell />,
    children: [
      { path: 'dashboard', element: <PlaceholderPage title="Dashboard" /> },
      { path: 'clients', element: <ClientsPage /> },
      { path: 'client/new', element: <NewClientPage /> },
      { path: 'client/:clientId', element: <ClientPage /> },
      { path: 'contact/edit/:id', element: <EditContactPage /> },
      { path: 'contact/new/:id', element: <NewContactPage /> },
      { path: 'child/edit/:id', element: <EditChildPage /> },
      { path: 'child/new/:id', element: <AddChildPage /> },
      { path: 'tutors', element: <TutorsPage /> },
      { path: 'tutor/new', element: <NewTutorPage /> },
      { path: 'tutor/:tutorId', element: <TutorPage /> },
      { path: 'tutor/terminate/:tutorId', element: <TerminateTutorPage /> },
      { path: 'tutor/reactivate/:tutorId', element: <ReactivateTutorPage /> },
      { path: 'engagement/new/:tutorId', element: <AddEngagementPage /> },
      { path: 'engagement/detail/:tutorId/:engagementId', element: <EngagementDetailPage /> },
      { path: 'engagement/edit/:tutorId/:engagementId', element: <EditEngagementPage /> },
      { path: 'engagement/rates/:tutorId/:engagementId', element: <ChangeRatesPage /> },
      { path: 'engagement/subjects/:tutorId/:engagementId', element: <ChangeSubjectsPage /> },
      { path: 'engagement/terminate/:tutorId/:engagementId', element: <TerminateEngagementPage /> },
      { path: 'lessons', element: <LessonsPage /> },
      { path: 'lessons/add', element: <AddLessonsPage /> },
      { path: 'lessons/add/:tutorId', element: <AddLessonsPage /> },
      { path: 'invoices', element: <InvoicesPage /> },
      { path: 'invoice/generate', element: <InvoiceConfirmationPage /> },
      { path: 'invoice/generate/:tutorId', element: <InvoiceConfirmationPage /> },
      { path: 'reports/invoices', element: <InvoiceStatusPage /> },
      ...placeholders.map(([path, title]) => ({ path, element: <PlaceholderPage key={path} title={title} /> })),
      { path: '*', element: <PlaceholderPage title="Page Not Found" /> },
    ],
  },
];

export const createRouter = () => createBrowserRouter(routes);
