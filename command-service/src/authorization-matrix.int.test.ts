import { randomUUID } from 'node:crypto';
import { payStatement } from '@agency/domain';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Every route of the app (read from its route table, each tagged with the tree that adds it) ×
 * every kind of caller, against a declared table of expected answers. A route without a rule
 * fails the test, and so does a rule whose route is gone.
 */

/** `family`: a login of the family `clientA`; `otherFamily`: one of another family (docs/family-access.md). */
const ACTORS = [
  'none',
  'ended',
  'tutor',
  'otherTutor',
  'partner',
  'admin',
  'auditor',
  'family',
  'otherFamily',
] as const;
type Actor = (typeof ACTORS)[number];

/**
 * - `auth`: 401, no session;
 * - `deny`: 403 or 404 (refused, or hidden as not found);
 * - `allow`: let through: 2xx, or the input's own 4xx (400 invalid, 409 a broken rule);
 * - `scoped`: let through, but answered with the caller's own data only: 2xx that never names
 *   tutor A, or refused (403/404);
 * - `open`: needs no session: anything but 403 and a 5xx.
 */
type Outcome = 'auth' | 'deny' | 'allow' | 'scoped' | 'open';
type Expectation = Record<Actor, Outcome>;

type Fixtures = {
  tutorA: string;
  /** A throw-away tutor without a login, for admin-only changes. */
  spareTutor: string;
  clientA: string;
  contactA: string;
  engagementA: string;
  invoiceA: string;
  /** A's pay statement of March 2025, issued and not confirmed. */
  payStatementA: string;
  /** A consultation's family invoice, to open. */
  familyInvoice: string;
  /** Family A's child, whom family A may book and another family may not. */
  childA: string;
  /** A workshop event and a public booking on it. */
  workshopEvent: string;
  registration: string;
};

/** `stream`: an answer that never ends (server-sent events): its status is read, its body dropped. */
type Call = { url: string; method?: 'HEAD'; body?: object; freshSession?: boolean; stream?: boolean };
type Rule = { call: (f: Fixtures) => Call; expect: Expectation; optional?: boolean };

const signedIn: Expectation = {
  none: 'auth',
  ended: 'auth',
  tutor: 'allow',
  otherTutor: 'allow',
  partner: 'allow',
  admin: 'allow',
  auditor: 'allow',
  // A family's session reaches only the family routes and its own session's (docs/family-access.md).
  family: 'deny',
  otherFamily: 'deny',
};
/** A command only an admin gives: an auditor reads everything and changes nothing. */
const adminOnly: Expectation = { ...signedIn, tutor: 'deny', otherTutor: 'deny', partner: 'deny', auditor: 'deny' };
/** What only admins read (sessions, audit trails): auditors read it too. */
const adminOrAuditor: Expectation = { ...adminOnly, auditor: 'allow' };
/** Admins and partners (the office); tutors are refused. */
const office: Expectation = { ...signedIn, tutor: 'deny', otherTutor: 'deny' };
/** Tutor A's own data: A, partners and admins read it; another tutor is refused. */
const ownOrOffice: Expectation = { ...signedIn, otherTutor: 'deny' };
/** As `ownOrOffice`, but another tutor is answered with their own data instead. */
const ownScopedOrOffice: Expectation = { ...signedIn, otherTutor: 'scoped' };
/** Tutor A's own command: A and admins; another tutor, a partner (for someone else) and an auditor are refused. */
const ownOrAdmin: Expectation = { ...signedIn, otherTutor: 'deny', partner: 'deny', auditor: 'deny' };
const open: Expectation = {
  none: 'open',
  ended: 'open',
  tutor: 'open',
  otherTutor: 'open',
  partner: 'open',
  admin: 'open',
  auditor: 'open',
  family: 'open',
  otherFamily: 'open',
};

/** Not there for anyone, sessions of every kind included (404). */
const hidden: Expectation = {
  none: 'deny',
  ended: 'deny',
  tutor: 'deny',
  otherTutor: 'deny',
  partner: 'deny',
  admin: 'deny',
  auditor: 'deny',
  family: 'deny',
  otherFamily: 'deny',
};
/** Any signed-in session, a family's included: the session's own routes. */
const anySession: Expectation = { ...signedIn, family: 'allow', otherFamily: 'allow' };
/** Family A's own: A's login; every other session refused, another family's as not found. */
const ownFamily: Expectation = {
  ...hidden,
  none: 'auth',
  ended: 'auth',
  family: 'allow',
};
/** A family's own list: each family's login answered with its own only. */
const ownFamilyScoped: Expectation = { ...ownFamily, otherFamily: 'scoped' };

const MONTH = { year: 2025, month: 3 };
const week = (f: Fixtures) => `from=2025-03-10&to=2025-03-16&month=2025-03&tutorId=${f.tutorA}`;

/** The expectations, keyed by method and route as the route table spells it. */
const RULES: Record<string, Rule> = {
  // ── command service: sessions ──
  'POST /auth/local': { call: () => ({ url: '/auth/local', body: {} }), expect: open },
  'GET /auth/local/me': { call: () => ({ url: '/auth/local/me' }), expect: anySession },
  'POST /auth/local/keepalive': { call: () => ({ url: '/auth/local/keepalive', body: {} }), expect: anySession },
  'POST /auth/local/logout': {
    call: () => ({ url: '/auth/local/logout', body: {}, freshSession: true }),
    expect: { ...anySession, none: 'open', ended: 'open' },
  },
  // ── families: sign-in by e-mailed link (no login: rate-limited), and the admin's hold on it ──
  'POST /auth/family/link': { call: () => ({ url: '/auth/family/link', body: {} }), expect: open },
  'POST /auth/family/session': { call: () => ({ url: '/auth/family/session', body: {} }), expect: open },
  'POST /api/clients/family-access/:contactId': {
    call: (f) => ({ url: `/api/clients/family-access/${f.contactA}`, body: {} }),
    expect: adminOnly,
  },
  'POST /api/clients/family-sessions/end/:contactId': {
    // One session nobody has: family A's own stay live for the rules after this one.
    call: (f) => ({ url: `/api/clients/family-sessions/end/${f.contactA}`, body: { sessionId: 'no-such-session' } }),
    expect: adminOnly,
  },
  'GET /api/clients/:id/family-access': {
    call: (f) => ({ url: `/api/clients/${f.clientA}/family-access` }),
    expect: adminOrAuditor,
  },
  // ── families' own pages: family A's, by its session; its ids are another family's 404 ──
  'POST /api/family/bookings': {
    call: (f) => ({ url: '/api/family/bookings', body: { eventId: f.workshopEvent, childIds: [f.childA] } }),
    expect: ownFamily,
  },
  'GET /api/family/overview': { call: () => ({ url: '/api/family/overview' }), expect: ownFamilyScoped },
  'GET /api/family/details': { call: () => ({ url: '/api/family/details' }), expect: ownFamilyScoped },
  'GET /api/family/lessons': { call: () => ({ url: '/api/family/lessons?year=2025' }), expect: ownFamilyScoped },
  'GET /api/family/bookings': { call: () => ({ url: '/api/family/bookings' }), expect: ownFamilyScoped },
  'GET /api/family/export': { call: () => ({ url: '/api/family/export' }), expect: ownFamilyScoped },
  'POST /api/family/erasure-request': {
    call: () => ({ url: '/api/family/erasure-request', body: {} }),
    expect: ownFamilyScoped,
  },
  'POST /api/clients/erasure-request/decide/:clientId': {
    call: (f) => ({ url: `/api/clients/erasure-request/decide/${f.clientA}`, body: {} }),
    expect: adminOnly,
  },
  // A family corrects its own contacts; another family's contact id is 404, as an unknown one.
  'POST /api/family/contact/:contactId': {
    call: (f) => ({
      url: `/api/family/contact/${f.contactA}`,
      body: { address: ['1 Lane'], postcode: 'OX1 1AA', phone: [{ type: 'Home', number: '01865 000001' }] },
    }),
    expect: ownFamily,
  },
  'POST /api/family/email-change/:contactId': {
    call: (f) => ({ url: `/api/family/email-change/${f.contactA}`, body: { email: 'family.new@example.com' } }),
    expect: ownFamily,
  },
  'POST /api/clients/email-change/decide/:contactId': {
    call: (f) => ({ url: `/api/clients/email-change/decide/${f.contactA}`, body: {} }),
    expect: adminOnly,
  },
  // Calendar feeds: made and revoked by their owner (a family its own, an admin the agency's); read by address alone.
  'POST /api/family/calendar-feed': {
    call: () => ({ url: '/api/family/calendar-feed', body: {} }),
    expect: ownFamilyScoped,
  },
  'POST /api/family/calendar-feed/revoke': {
    call: () => ({ url: '/api/family/calendar-feed/revoke', body: {} }),
    expect: ownFamilyScoped,
  },
  'POST /api/agency/calendar-feed': { call: () => ({ url: '/api/agency/calendar-feed', body: {} }), expect: adminOnly },
  'POST /api/agency/calendar-feed/revoke': {
    call: () => ({ url: '/api/agency/calendar-feed/revoke', body: {} }),
    expect: adminOnly,
  },
  'GET /api/calendar/:file': { call: () => ({ url: '/api/calendar/no-such-feed.ics' }), expect: open },
  'GET /api/family/invoices/doc/:id': {
    call: (f) => ({ url: `/api/family/invoices/doc/${f.familyInvoice}` }),
    expect: ownFamily,
  },
  'POST /auth/local/activate': { call: () => ({ url: '/auth/local/activate', body: {} }), expect: open },
  'GET /auth/local/activation': { call: () => ({ url: '/auth/local/activation?code=none' }), expect: open },
  'POST /auth/local/reset': { call: () => ({ url: '/auth/local/reset', body: {} }), expect: open },
  'POST /auth/local/password': { call: () => ({ url: '/auth/local/password', body: {} }), expect: open },
  // ── command service: admin commands (an empty body: an admin gets 400, anyone else is stopped first) ──
  'POST /api/users': { call: () => ({ url: '/api/users', body: {} }), expect: adminOnly },
  'POST /api/users/active/:userId': {
    call: () => ({ url: `/api/users/active/${randomUUID()}`, body: {} }),
    expect: adminOnly,
  },
  'POST /api/clients': { call: () => ({ url: '/api/clients', body: {} }), expect: adminOnly },
  'POST /api/clients/contact': { call: () => ({ url: '/api/clients/contact', body: {} }), expect: adminOnly },
  'POST /api/clients/contact/:clientId': {
    call: (f) => ({ url: `/api/clients/contact/${f.clientA}`, body: {} }),
    expect: adminOnly,
  },
  'POST /api/contacts/:id': { call: (f) => ({ url: `/api/contacts/${f.contactA}`, body: {} }), expect: adminOnly },
  'POST /api/clients/child': { call: () => ({ url: '/api/clients/child', body: {} }), expect: adminOnly },
  'POST /api/clients/child/:clientId': {
    call: (f) => ({ url: `/api/clients/child/${f.clientA}`, body: {} }),
    expect: adminOnly,
  },
  'POST /api/clients/active/:id': {
    call: (f) => ({ url: `/api/clients/active/${f.clientA}`, body: {} }),
    expect: adminOnly,
  },
  'POST /api/clients/erase/:id': {
    call: (f) => ({ url: `/api/clients/erase/${f.clientA}`, body: {} }),
    expect: adminOnly,
  },
  'POST /api/workshops/registrations/erase/:id': {
    call: (f) => ({ url: `/api/workshops/registrations/erase/${f.registration}`, body: {} }),
    expect: adminOnly,
  },
  'POST /api/tutors/erase/:id': {
    call: (f) => ({ url: `/api/tutors/erase/${f.spareTutor}`, body: {} }),
    expect: adminOnly,
  },
  'POST /api/tutors/suggest': { call: () => ({ url: '/api/tutors/suggest', body: {} }), expect: adminOnly },
  'POST /api/tutors/contact': { call: () => ({ url: '/api/tutors/contact', body: {} }), expect: adminOnly },
  'POST /api/tutors/tutor': { call: () => ({ url: '/api/tutors/tutor', body: {} }), expect: adminOnly },
  'POST /api/tutors/active/:id': {
    call: (f) => ({ url: `/api/tutors/active/${f.spareTutor}`, body: {} }),
    expect: adminOnly,
  },
  'POST /api/tutors/activate/:tutorId': {
    call: (f) => ({ url: `/api/tutors/activate/${f.spareTutor}`, body: {} }),
    expect: adminOnly,
  },
  'POST /api/tutors/partner/:tutorId': {
    call: (f) => ({ url: `/api/tutors/partner/${f.spareTutor}`, body: {} }),
    expect: adminOnly,
  },
  'POST /api/tutors/sessions/end/:tutorId': {
    call: (f) => ({ url: `/api/tutors/sessions/end/${f.spareTutor}`, body: {} }),
    expect: adminOnly,
  },
  'POST /api/tutors/engagement': { call: () => ({ url: '/api/tutors/engagement', body: {} }), expect: adminOnly },
  'POST /api/import': { call: () => ({ url: '/api/import', body: {} }), expect: adminOnly },
  'GET /api/import/templates/:file': { call: () => ({ url: '/api/import/templates/families.csv' }), expect: adminOnly },
  'POST /api/invoices/payment': { call: () => ({ url: '/api/invoices/payment', body: {} }), expect: adminOnly },
  'POST /api/consultations': { call: () => ({ url: '/api/consultations', body: {} }), expect: adminOnly },
  'POST /api/consultations/cancel': { call: () => ({ url: '/api/consultations/cancel', body: {} }), expect: adminOnly },
  // ── workshops: admins only, but for the public booking (no login: bounded by a rate limit) ──
  'POST /api/events': { call: () => ({ url: '/api/events', body: {} }), expect: adminOnly },
  'POST /api/events/cancel': { call: () => ({ url: '/api/events/cancel', body: {} }), expect: adminOnly },
  'POST /api/events/place': { call: () => ({ url: '/api/events/place', body: {} }), expect: adminOnly },
  'POST /api/events/move': { call: () => ({ url: '/api/events/move', body: {} }), expect: adminOnly },
  'POST /api/events/delete': { call: () => ({ url: '/api/events/delete', body: {} }), expect: adminOnly },
  'POST /api/events/createInvoice': { call: () => ({ url: '/api/events/createInvoice', body: {} }), expect: adminOnly },
  'POST /api/events/confirmInvoice': {
    call: () => ({ url: '/api/events/confirmInvoice', body: {} }),
    expect: adminOnly,
  },
  'POST /api/public/events/:eventId/registrations': {
    call: () => ({ url: '/api/public/events/none/registrations', body: {} }),
    expect: open,
  },
  'POST /api/public/bookings/confirm': {
    call: () => ({ url: '/api/public/bookings/confirm', body: {} }),
    expect: open,
  },
  'POST /api/events/register': { call: () => ({ url: '/api/events/register', body: {} }), expect: adminOnly },
  'POST /api/family-invoices/payment': {
    call: () => ({ url: '/api/family-invoices/payment', body: {} }),
    expect: adminOnly,
  },
  'POST /api/agency': { call: () => ({ url: '/api/agency', body: {} }), expect: adminOnly },
  // Billing the families for a month's lessons (docs/money-models.md, "Family lesson invoices").
  'POST /api/family-invoices/lesson-billing': {
    call: () => ({ url: '/api/family-invoices/lesson-billing', body: {} }),
    expect: adminOnly,
  },
  'POST /api/family-invoices/lesson-credit': {
    call: () => ({ url: '/api/family-invoices/lesson-credit', body: {} }),
    expect: adminOnly,
  },
  'POST /api/agency/reminders': { call: () => ({ url: '/api/agency/reminders', body: {} }), expect: adminOnly },
  // How the agency is paid, and an engagement's own model: admins only (docs/money-models.md).
  'POST /api/agency/money-model': { call: () => ({ url: '/api/agency/money-model', body: {} }), expect: adminOnly },
  'POST /api/engagements/money-model/:engagementId': {
    call: (f) => ({ url: `/api/engagements/money-model/${f.engagementA}`, body: {} }),
    expect: adminOnly,
  },
  // Bank details and pay runs are the admins' alone: not auditors', nor a tutor's own (docs/money-models.md).
  'POST /api/tutors/bank-details/:tutorId': {
    call: (f) => ({ url: `/api/tutors/bank-details/${f.tutorA}`, body: {} }),
    expect: adminOnly,
  },
  'POST /api/pay-runs': { call: () => ({ url: '/api/pay-runs', body: {} }), expect: adminOnly },
  'POST /api/pay-runs/paid/:month': {
    call: () => ({ url: '/api/pay-runs/paid/2025-03', body: {} }),
    expect: adminOnly,
  },
  // ── command service: tutor A's own commands (valid bodies, so ownership is what decides) ──
  'POST /api/lessons/lesson': {
    call: (f) => ({
      url: `/api/lessons/lesson?${week(f)}`,
      body: { tutorId: f.tutorA, lesson: { engagementId: f.engagementA, date: '2025-03-12', duration: 0.5 } },
    }),
    expect: ownOrAdmin,
  },
  'POST /api/invoices/save': {
    call: (f) => ({ url: '/api/invoices/save', body: { tutorId: f.tutorA, ...MONTH } }),
    expect: ownOrAdmin,
  },
  'POST /api/invoices/confirm': {
    call: (f) => ({ url: '/api/invoices/confirm', body: { id: f.invoiceA } }),
    expect: ownOrAdmin,
  },
  // January's invoice is confirmed: A and admins are answered 409 (it stays), the others refused.
  'POST /api/invoices/withdraw': {
    call: (f) => ({ url: '/api/invoices/withdraw', body: { id: `${f.tutorA}_2025-01` } }),
    expect: ownOrAdmin,
  },
  // Pay statements: an admin prepares a month; its tutor (or an admin for them) confirms one (docs/money-models.md).
  'POST /api/pay-statements': { call: () => ({ url: '/api/pay-statements', body: {} }), expect: adminOnly },
  'POST /api/pay-statements/confirm': {
    call: (f) => ({ url: '/api/pay-statements/confirm', body: { id: f.payStatementA } }),
    expect: ownOrAdmin,
  },
  'GET /api/pay-statements': {
    call: (f) => ({ url: `/api/pay-statements?tutorId=${f.tutorA}` }),
    expect: ownScopedOrOffice,
  },
  'GET /api/pay-statements/:id': {
    call: (f) => ({ url: `/api/pay-statements/${f.payStatementA}` }),
    expect: ownOrOffice,
  },
  'GET /api/pay-statements/:id/document.pdf': {
    call: (f) => ({ url: `/api/pay-statements/${f.payStatementA}/document.pdf` }),
    expect: ownOrOffice,
  },
  // ── the app: the figures for a monitoring system: no such route to anyone without METRICS_TOKEN
  // (this product has none; front-door.int.test.ts reads them with it, and refuses every session) ──
  'GET /metrics': { call: () => ({ url: '/metrics' }), expect: hidden },
  // ── the app: the built UI (present only after npm run build:ui) ──
  'GET /*': { call: () => ({ url: '/clients' }), expect: open, optional: true },
  // ── the app: its OpenAPI description and Swagger UI (public: they describe, they hold no data) ──
  'GET /api/docs': { call: () => ({ url: '/api/docs' }), expect: open, optional: true },
  'HEAD /api/docs/': { call: () => ({ url: '/api/docs/', method: 'HEAD' }), expect: open, optional: true },
  'GET /api/docs/json': { call: () => ({ url: '/api/docs/json' }), expect: open, optional: true },
  'GET /api/docs/yaml': { call: () => ({ url: '/api/docs/yaml' }), expect: open, optional: true },
  'GET /api/docs/static/index.html': {
    call: () => ({ url: '/api/docs/static/index.html' }),
    expect: open,
    optional: true,
  },
  'GET /api/docs/static/swagger-initializer.js': {
    call: () => ({ url: '/api/docs/static/swagger-initializer.js' }),
    expect: open,
    optional: true,
  },
  'GET /api/docs/static/*': { call: () => ({ url: '/api/docs/static/swagger-ui.css' }), expect: open, optional: true },
  // ── query service ──
  'GET /api/health': { call: () => ({ url: '/api/health' }), expect: open },
  'GET /api/users/me': { call: () => ({ url: '/api/users/me' }), expect: signedIn },
  'GET /api/users': { call: () => ({ url: '/api/users' }), expect: adminOrAuditor },
  'GET /api/clients': { call: () => ({ url: '/api/clients?includeInactive=Y' }), expect: signedIn },
  'GET /api/clients/:id': { call: (f) => ({ url: `/api/clients/${f.clientA}` }), expect: ownOrOffice },
  'GET /api/clients/:id/children': {
    call: (f) => ({ url: `/api/clients/${f.clientA}/children` }),
    expect: ownOrOffice,
  },
  // A subject-access export (every personal field of a family): admins only, auditors refused too.
  'GET /api/clients/:id/export': { call: (f) => ({ url: `/api/clients/${f.clientA}/export` }), expect: adminOnly },
  'GET /api/workshops/registrations/:id/export': {
    call: (f) => ({ url: `/api/workshops/registrations/${f.registration}/export` }),
    expect: adminOnly,
  },
  'GET /api/contacts/:id': { call: (f) => ({ url: `/api/contacts/${f.contactA}` }), expect: ownOrOffice },
  'GET /api/tutors': { call: () => ({ url: '/api/tutors?includeInactive=Y' }), expect: office },
  'GET /api/tutors/:id': { call: (f) => ({ url: `/api/tutors/${f.tutorA}` }), expect: ownOrOffice },
  'GET /api/tutors/:id/sessions': {
    call: (f) => ({ url: `/api/tutors/${f.tutorA}/sessions` }),
    expect: adminOrAuditor,
  },
  'GET /api/tutors/engagement/:tutorId/:engagementId': {
    call: (f) => ({ url: `/api/tutors/engagement/${f.tutorA}/${f.engagementA}` }),
    expect: ownOrOffice,
  },
  'GET /api/tutors/engagement/:tutorId/:engagementId/on/:date': {
    call: (f) => ({ url: `/api/tutors/engagement/${f.tutorA}/${f.engagementA}/on/2025-03-12` }),
    expect: ownOrOffice,
  },
  'GET /api/lessons': {
    call: (f) => ({ url: `/api/lessons?year=2025&month=3&tutorId=${f.tutorA}` }),
    expect: ownScopedOrOffice,
  },
  'GET /api/lessons/timesheet': {
    call: (f) => ({ url: `/api/lessons/timesheet?${week(f)}` }),
    expect: ownScopedOrOffice,
  },
  'GET /api/invoices': {
    call: (f) => ({ url: `/api/invoices?year=2025&month=3&tutorId=${f.tutorA}` }),
    expect: ownScopedOrOffice,
  },
  'GET /api/invoices/': {
    call: (f) => ({ url: `/api/invoices/?year=2025&month=3&tutorId=${f.tutorA}` }),
    expect: ownScopedOrOffice,
  },
  // Live updates: everyone signed in; a tutor hears only of their own data (live-updates.int.test.ts).
  'GET /api/live': { call: () => ({ url: '/api/live', stream: true }), expect: signedIn },
  // Everyone's home; a tutor's holds only their own figures.
  'GET /api/dashboard': { call: () => ({ url: '/api/dashboard' }), expect: ownScopedOrOffice },
  'GET /api/invoices/preview': {
    call: (f) => ({ url: `/api/invoices/preview?year=2025&month=3&tutorId=${f.tutorA}` }),
    expect: ownOrOffice,
  },
  'GET /api/invoices/summary': {
    call: (f) => ({ url: `/api/invoices/summary?year=2025&month=2&tutorId=${f.tutorA}` }),
    expect: ownScopedOrOffice,
  },
  'GET /api/invoices/doc/:id': { call: (f) => ({ url: `/api/invoices/doc/${f.invoiceA}` }), expect: ownOrOffice },
  'GET /api/invoices/:id': { call: (f) => ({ url: `/api/invoices/${f.invoiceA}` }), expect: ownOrOffice },
  'GET /api/events': { call: () => ({ url: '/api/events?includePast=Y' }), expect: adminOrAuditor },
  'GET /api/events/registrations/:eventId': {
    call: (f) => ({ url: `/api/events/registrations/${f.workshopEvent}` }),
    expect: adminOrAuditor,
  },
  'GET /api/events/registrations/:eventId/:registrationId': {
    call: (f) => ({ url: `/api/events/registrations/${f.workshopEvent}/${f.registration}` }),
    expect: adminOrAuditor,
  },
  'GET /api/events/alternatives/:eventId': {
    call: () => ({ url: '/api/events/alternatives/none' }),
    expect: adminOrAuditor,
  },
  'GET /api/events/invoice-draft': {
    call: () => ({ url: '/api/events/invoice-draft?email=a@example.com' }),
    expect: adminOrAuditor,
  },
  'GET /api/reports/workshops': { call: () => ({ url: '/api/reports/workshops' }), expect: adminOrAuditor },
  'GET /api/public/events': { call: () => ({ url: '/api/public/events' }), expect: open },
  'GET /api/consultations': { call: () => ({ url: '/api/consultations?year=2025' }), expect: adminOrAuditor },
  // Families' money: the ledger, a family's invoices and balance, and the documents they link to.
  'GET /api/family-invoices': { call: () => ({ url: '/api/family-invoices?state=unpaid' }), expect: office },
  'GET /api/clients/:id/overview': { call: (f) => ({ url: `/api/clients/${f.clientA}/overview` }), expect: office },
  'GET /api/family-invoices/doc/:id': {
    call: (f) => ({ url: `/api/family-invoices/doc/${f.familyInvoice}` }),
    expect: office,
  },
  'GET /api/family-invoices/lines/:id': {
    call: (f) => ({ url: `/api/family-invoices/lines/${f.familyInvoice}` }),
    expect: office,
  },
  // The invoices page's notice shows the agency's bank account to everyone signed in.
  'GET /api/agency': { call: () => ({ url: '/api/agency' }), expect: signedIn },
  'GET /api/agency/reminders': { call: () => ({ url: '/api/agency/reminders' }), expect: adminOrAuditor },
  'GET /api/agency/money-model': { call: () => ({ url: '/api/agency/money-model' }), expect: adminOrAuditor },
  // The model an engagement's lessons are under: its tutor and the office read it.
  'GET /api/engagements/money-model/:engagementId': {
    call: (f) => ({ url: `/api/engagements/money-model/${f.engagementA}` }),
    expect: ownOrOffice,
  },
  'GET /api/tutors/bank-details/:tutorId': {
    call: (f) => ({ url: `/api/tutors/bank-details/${f.tutorA}` }),
    expect: adminOnly,
  },
  'GET /api/pay-runs': { call: () => ({ url: '/api/pay-runs' }), expect: adminOnly },
  // No such month: the admin is told so (400) where everyone else is refused before it is read.
  'GET /api/pay-runs/:month': { call: () => ({ url: '/api/pay-runs/not-a-month' }), expect: adminOnly },
  'GET /api/pay-runs/:month/bank-file.csv': {
    call: () => ({ url: '/api/pay-runs/not-a-month/bank-file.csv' }),
    expect: adminOnly,
  },
  'GET /api/reports/aged-debt': { call: () => ({ url: '/api/reports/aged-debt' }), expect: office },
  'GET /api/reports/accounting-export': {
    call: () => ({ url: '/api/reports/accounting-export?from=2025-01-01&to=2025-01-31' }),
    expect: adminOrAuditor,
  },
  'GET /api/history/:streamId': {
    call: (f) => ({ url: `/api/history/engagement-${f.engagementA}` }),
    expect: office,
  },
  'GET /api/invoices/trace/:id': { call: (f) => ({ url: `/api/invoices/trace/${f.invoiceA}` }), expect: office },
  'GET /api/activity': { call: () => ({ url: '/api/activity?from=2025-01-01&to=2025-01-31' }), expect: adminOrAuditor },
  'GET /api/reports/invoiceStatus': {
    call: () => ({ url: '/api/reports/invoiceStatus?year=2025&month=3' }),
    expect: office,
  },
};

/** `scoped`: the answer names none of `others` (tutor A's id, or family A's ids and child for another family). */
function classify(status: number, body: string, others: readonly string[]): Outcome[] {
  const found: Outcome[] = [];
  if (status === 401) found.push('auth');
  if (status === 403 || status === 404) found.push('deny', 'scoped');
  if ((status >= 200 && status < 300) || status === 400 || status === 409) found.push('allow');
  if (status >= 200 && status < 300 && !others.some((other) => body.includes(other))) found.push('scoped');
  if (status !== 403 && status < 500) found.push('open');
  return found;
}

describe('authorization matrix: every route of the app × every kind of caller', () => {
  let product: TestProduct;
  const routes: { service: 'command' | 'query' | 'app'; key: string }[] = [];
  let fixtures: Fixtures;
  const credentials: Partial<Record<Actor, { username: string; password: string }>> = {};
  const tokens: Partial<Record<Actor, string>> = {};
  const familySession: Partial<Record<Actor, () => Promise<string>>> = {};

  const send = (call: Call, token?: string) =>
    fetch(`${product.url}${call.url}`, {
      method: call.method ?? (call.body ? 'POST' : 'GET'),
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(call.body ? { 'content-type': 'application/json' } : {}),
      },
      body: call.body ? JSON.stringify(call.body) : undefined,
    });
  const ok = async (url: string, body: object) => {
    const response = await send({ url, body: { commandId: randomUUID(), ...body } }, tokens.admin);
    const text = await response.text();
    expect(response.status, `${url}: ${text}`).toBe(200);
    return JSON.parse(text);
  };
  const contact = (firstName: string, lastName: string) => ({
    firstName,
    lastName,
    address: ['1 Matrix Road'],
    postcode: 'OX1 1AA',
    email: `${firstName}.${lastName}@example.com`.toLowerCase(),
    phone: [{ type: 'Mobile', number: '07700 900001' }],
  });
  const newTutor = async (first: string, login?: { username: string; role: 'tutor' | 'partner' }) => {
    const { tutor } = await ok('/api/tutors/contact', {
      contact: contact(first, 'Matrix'),
      tutor: {
        username: `${first}matrix`.toLowerCase(),
        invoicePrefix: first.slice(0, 2).toUpperCase(),
        startDate: '2024-09-01',
      },
    });
    if (login) {
      const password = `${first}-Matrix-pass-42`;
      await ok('/api/users', { username: login.username, password, role: login.role, tutorId: tutor.id, name: first });
      return { id: tutor.id as string, username: login.username, password };
    }
    return { id: tutor.id as string, username: '', password: '' };
  };

  beforeAll(async () => {
    product = await startTestProduct();
    for (const { tree, method, url } of product.routes) routes.push({ service: tree, key: `${method} ${url}` });
    credentials.admin = TEST_ADMIN;
    tokens.admin = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
    const a = await newTutor('Ada', { username: 'ada.matrix', role: 'tutor' });
    const b = await newTutor('Ben', { username: 'ben.matrix', role: 'tutor' });
    const c = await newTutor('Cy', { username: 'cy.matrix', role: 'partner' });
    const auditor = { username: 'eve.matrix', password: 'Eve-Matrix-audit-42' };
    await ok('/api/users', { ...auditor, role: 'auditor', name: 'Eve Auditor' });
    const spare = await newTutor('Dot');
    const { client, contact: familyContact } = await ok('/api/clients/contact', contact('Parent', 'Matrix'));
    const { child } = await ok(`/api/clients/child/${client.id}`, {
      firstName: 'Kid',
      lastName: 'Matrix',
      dob: '2014-02-02',
    });
    const { engagement } = await ok('/api/tutors/engagement', {
      tutorId: a.id,
      studentId: child.id,
      rate: 30,
      commissionPct: 25,
      partnerPct: 10,
      startDate: '2025-01-06',
      subjects: ['Maths'],
    });
    // An invoice of A's to confirm and to open: February.
    const { invoice } = await ok('/api/invoices/save', { tutorId: a.id, year: 2025, month: 2 });
    await ok('/api/invoices/save', { tutorId: a.id, year: 2025, month: 1 });
    await ok('/api/invoices/confirm', { id: `${a.id}_2025-01` });
    const { consultation } = await ok('/api/consultations', { client: client.id, child: child.id, date: '2025-02-03' });
    const { event } = await ok('/api/events', {
      description: 'Matrix workshop',
      dateTime: '2099-07-20T10:00',
      durationMinutes: 60,
      price: 30,
      capacity: 5,
    });
    const booked = await product.command.app.inject({
      method: 'POST',
      url: '/api/events/register',
      headers: { authorization: `Bearer ${tokens.admin}` },
      payload: {
        commandId: randomUUID(),
        eventId: event.id,
        contact: { ...contact('Parent', 'Booker'), phone: '07700 900000' },
        children: [{ firstName: 'Kid', lastName: 'Booker' }],
      },
    });
    // A pay statement of A's to open and confirm, issued on its stream as the pay-statements reactor does.
    const issuing = product.command.actAs({ id: 'matrix', username: 'matrix', role: 'admin' }, randomUUID());
    const statementId = payStatement.payStatementId(a.id, '2025-03');
    await issuing.context.run(payStatement.payStatementStream(a.id, '2025-03'), payStatement.payStatementDecider, {
      type: 'IssuePayStatement',
      statement: {
        statementId,
        tutorId: a.id,
        month: '2025-03',
        reference: 'PS-AD-2025-03',
        date: '2025-04-01',
        lines: [],
        carriedPence: 0,
      },
    });
    const issuedAt = issuing.appendedUpTo();
    if (issuedAt) await product.command.deps.projections.waitFor(issuedAt);
    fixtures = {
      payStatementA: statementId,
      workshopEvent: event.id,
      registration: booked.json().registration.id,
      tutorA: a.id,
      spareTutor: spare.id,
      clientA: client.id,
      contactA: familyContact.id,
      engagementA: engagement.id,
      invoiceA: invoice.id,
      familyInvoice: consultation.invoiceId,
      childA: child.id,
    };
    // A family's logins: family A's contact, and a contact of another family (real sessions, as a link gives).
    const other = await ok('/api/clients/contact', contact('Other', 'Matrixfamily'));
    for (const [actor, contactId, clientId] of [
      ['family', familyContact.id, client.id],
      ['otherFamily', other.contact.id, other.client.id],
    ] as const) {
      const id = `family-${contactId}`;
      familySession[actor] = () => product.command.signSession({ id, username: id, role: 'family', clientId });
      tokens[actor] = await familySession[actor]();
    }
    for (const [actor, user] of [
      ['tutor', a],
      ['otherTutor', b],
      ['partner', c],
      ['auditor', auditor],
    ] as const) {
      credentials[actor] = user;
      tokens[actor] = await product.login(user.username, user.password);
    }
    // An admin's session that was logged out: its token must speak for nobody.
    tokens.ended = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
    const logout = await send({ url: '/auth/local/logout', body: {} }, tokens.ended);
    expect(logout.status).toBe(200);
  });
  afterAll(() => product?.dispose());

  /** The routes as the table lists them; a HEAD that Fastify adds beside a GET follows the GET's rule. */
  const tableKeys = () => {
    const keys = new Set(routes.map((route) => route.key));
    return [...keys].filter((key) => !(key.startsWith('HEAD ') && keys.has(key.replace(/^HEAD /, 'GET '))));
  };

  it('reads the route table, each route with its tree', () => {
    expect(routes.some((route) => route.service === 'command' && route.key === 'POST /api/invoices/save')).toBe(true);
    expect(routes.some((route) => route.service === 'query' && route.key === 'GET /api/lessons')).toBe(true);
  });

  it('has a rule for every route, and a route for every rule', () => {
    const keys = tableKeys();
    const withoutRule = keys.filter((key) => !RULES[key]);
    expect(withoutRule, 'routes without a rule in RULES: add one').toEqual([]);
    const withoutRoute = Object.entries(RULES)
      .filter(([key, rule]) => !rule.optional && !keys.includes(key))
      .map(([key]) => key);
    expect(withoutRoute, 'rules whose route is gone').toEqual([]);
  });

  it('refuses the auditor on every command of either service', () => {
    // The public booking has no caller to refuse: it is open to everyone, auditors included.
    const commands = tableKeys().filter((key) => key.startsWith('POST /api/') && !key.startsWith('POST /api/public/'));
    expect(commands.length).toBeGreaterThan(10);
    expect(commands.filter((key) => RULES[key]?.expect.auditor !== 'deny')).toEqual([]);
  });

  it('has no GET /metrics without METRICS_TOKEN: 404 to everyone, an admin included', async () => {
    for (const actor of ['none', 'admin'] as const) {
      expect((await send({ url: '/metrics' }, tokens[actor])).status, actor).toBe(404);
    }
  });

  it('answers every route × caller as the table expects', async () => {
    const failures: string[] = [];
    for (const key of tableKeys()) {
      const rule = RULES[key];
      if (!rule) continue;
      for (const actor of ACTORS) {
        const call = rule.call(fixtures);
        let token = tokens[actor];
        const login = credentials[actor];
        if (call.freshSession && login && actor !== 'ended')
          token = await product.login(login.username, login.password);
        const family = familySession[actor];
        if (call.freshSession && family) token = await family();
        const response = await send(call, token);
        const endless = call.stream && response.ok;
        if (endless) await response.body?.cancel();
        const body = endless ? '' : await response.text();
        const expected = rule.expect[actor];
        const others =
          actor === 'otherFamily'
            ? [fixtures.clientA, fixtures.contactA, fixtures.familyInvoice, 'Kid']
            : [fixtures.tutorA];
        if (!classify(response.status, body, others).includes(expected)) {
          failures.push(`${key} as ${actor}: expected ${expected}, got ${response.status} ${body.slice(0, 120)}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });
});
