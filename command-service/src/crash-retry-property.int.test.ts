import { createHash, randomUUID } from 'node:crypto';
import { seedAgencyDetails } from '@agency/contracts';
import { moneyModel, payStatement } from '@agency/domain';
import type { RecordedEvent } from '@agency/platform';
import { readModels, rebuildAsAFreshProcess } from '@agency/scripts/testing/database-dump';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { payRunPaymentIdOf } from './pay-runs/pay-run-routes';
import { type FaultStep, injectFaults } from './race-points';

/**
 * One property over every command route: a crash at any point of a command (after each append of
 * its own, once it has handled it, just before its answer is recorded, or inside any step of a
 * reaction that follows from it), retried with the same command id or never retried, ends, once
 * the reactors and projections have caught up, in exactly the events, e-mails and document
 * references of one clean run; the retry is answered as a clean retry is; references never
 * repeat; and the read models equal a rebuild from the events.
 *
 * The routes are read from the command tree's part of the route table, so a new route fails here until it
 * has a scenario (or an exclusion saying why it is not a command).
 */

/** POSTs of the command service that are not commands, and why. */
const EXCLUDED: Record<string, string> = {
  'POST /auth/local': 'a login starts a session; it records no event',
  'POST /auth/local/keepalive': 'a session keep-alive; it records no event',
  'POST /auth/local/logout': 'ends a session; it records no event',
  'POST /auth/local/reset':
    'answers alike whether or not anything was recorded (no account enumeration) and takes no command id: a lost request is asked again, by design',
  'POST /api/tutors/suggest': 'a suggestion of names; nothing is recorded or reserved',
  'POST /auth/family/link':
    'answers alike whether or not a family has the address (no enumeration), records its links after answering and takes no command id: a lost request is asked again, by design',
  'POST /api/family/calendar-feed':
    'records no event and takes no command id (a kept answer would keep the secret): a lost request is asked again and its new feed replaces the one before',
  'POST /api/family/calendar-feed/revoke':
    'records no event: it revokes feeds in a table, and asked again revokes none',
  'POST /api/agency/calendar-feed':
    'records no event and takes no command id (a kept answer would keep the secret): a lost request is asked again and its new feed replaces the one before',
  'POST /api/agency/calendar-feed/revoke':
    'records no event: it revokes feeds in a table, and asked again revokes none',
  'POST /api/clients/family-sessions/end/:contactId':
    'records no event: it ends sessions outside the event store, and a retry after a crash answers how many it ended then (none are left)',
  'POST /api/import':
    'takes no command id: each row is its own command under an id derived from its content, and a file run again answers the rows written as unchanged, by design (its own retry test is import.int)',
};

/**
 * Routes known to break the property today, each with why: the test expects each to fail somewhere
 * and fails once it passes (then it comes off this list). Meant to be emptied by fixing the routes.
 */
const PENDING: Record<string, string> = {};

/** A request: who sends it is the admin, unless `public` or sent with a family's session token (`family`). */
type Call = { url: string; body: Record<string, unknown>; public?: boolean; family?: string; remoteAddress?: string };

type Scenario = {
  /** Makes what the command needs through the API (fresh for every run) and names the command. */
  setup: (run: RunSetup) => Promise<Call>;
  /** The route takes no command id (a single-use link instead): a retry is the same request again. */
  commandless?: boolean;
  /** Changes agency-wide state: its setup runs just before its own command, never ahead of others'. */
  global?: boolean;
};

let product: TestProduct;
let db: pg.Pool;
let admin: string;
let runCount = 0;
let bookingCount = 0;
/** The months prepared for pay statements so far: each run prepares the next (months go in order). */
let payMonths = 0;

/**
 * Pay runs' months, far older than any statement another scenario makes: a run of a month pays what
 * is owed on statements of that month and before, so each run here pays only its own (1901 on: runs
 * prepared with nothing to pay; 1951 on: runs paid).
 */
let payRunMonths = 0;
let paidRunMonths = 0;
/** Months asked to be billed for lessons, one per run, long before any lesson. */
let lessonBillingMonths = 0;
/** The agency's money model choices, one month each run. */
let moneyModelMonths = 0;
const oldMonth = (from: number, n: number) => `${from + Math.floor(n / 12)}-${String((n % 12) + 1).padStart(2, '0')}`;
/** The agency's today, as the pay-run routes read it. */
const londonToday = () => new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/London' }).format(new Date());

const hash = (text: string) => createHash('sha256').update(text).digest('hex');
const PASSWORD = 'Quartz-Heron-7731';

const contactOf = (firstName: string, lastName: string, tag: string) => ({
  firstName,
  lastName,
  address: ['1 High Street', 'Oxford'],
  postcode: 'OX1 1AA',
  email: `${firstName}.${lastName}.${tag}@example.com`.toLowerCase(),
  phone: [{ type: 'Mobile', number: '07700 900001' }],
});

/**
 * What one run makes before its command: every id it is given is named (`fixtures`), and every
 * name, e-mail address and prefix carries the run's tag, so a run's events compare with another's.
 */
class RunSetup {
  readonly tag = `x${++runCount}x`;
  readonly fixtures = new Map<string, string>();

  fix<T extends string>(name: string, value: T): T {
    this.fixtures.set(value, `<${name}>`);
    return value;
  }

  async ok(url: string, body: object) {
    const response = await product.command.app.inject({
      method: 'POST',
      url,
      payload: { commandId: randomUUID(), ...body },
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(response.statusCode, `setup ${url}: ${response.body}`).toBe(200);
    return response.json();
  }

  async tutor() {
    const { tutor } = await this.ok('/api/tutors/contact', {
      contact: contactOf('Tess', 'Tutor', this.tag),
      tutor: { username: `t${this.tag}`, invoicePrefix: `P${this.tag}`, startDate: '2024-09-01' },
    });
    return this.fix('tutor', tutor.id as string);
  }

  /** A family with its first contact and one child. */
  async family() {
    const { client, contact } = await this.ok('/api/clients/contact', contactOf('Fay', 'Family', this.tag));
    const { child } = await this.ok(`/api/clients/child/${client.id}`, {
      firstName: 'Kit',
      lastName: 'Family',
      dob: '2015-05-05',
    });
    return {
      clientId: this.fix('client', client.id as string),
      contactId: this.fix('contact', contact.id as string),
      childId: this.fix('child', child.id as string),
    };
  }

  readonly terms = { rate: 30, commissionPct: 25, partnerPct: 10, startDate: '2025-01-06', subjects: ['Maths'] };

  async engagement() {
    const tutorId = await this.tutor();
    const { childId } = await this.family();
    const { engagement } = await this.ok('/api/tutors/engagement', { tutorId, studentId: childId, ...this.terms });
    return { tutorId, engagementId: this.fix('engagement', engagement.id as string) };
  }

  /** March 2025's invoice of a tutor with one lesson in it. */
  async invoice() {
    const { tutorId, engagementId } = await this.engagement();
    await this.ok(lessonUrl(tutorId), { tutorId, lesson: { engagementId, date: '2025-03-12', duration: 1 } });
    const { invoice } = await this.ok('/api/invoices/save', { tutorId, year: 2025, month: 3 });
    return this.fix('invoice', invoice.id as string);
  }

  workshopBody(capacity = 5) {
    return {
      description: `Workshop ${this.tag}`,
      dateTime: '2099-07-20T10:00',
      durationMinutes: 60,
      price: 30,
      capacity,
    };
  }

  async workshop(name = 'event', capacity = 5) {
    const { event } = await this.ok('/api/events', this.workshopBody(capacity));
    return this.fix(name, event.id as string);
  }

  /** A public booking from its own address (bookings are limited per address and per e-mail). */
  bookingCall(eventId: string, parent: string): Call {
    const n = ++bookingCount;
    return {
      url: `/api/public/events/${eventId}/registrations`,
      body: {
        contact: { ...contactOf(parent, 'Booker', this.tag), phone: '07700 900000' },
        children: [{ firstName: 'Kid', lastName: 'Booker' }],
      },
      public: true,
      remoteAddress: `10.9.${Math.floor(n / 250)}.${(n % 250) + 1}`,
    };
  }

  /** An admin's booking on a parent's behalf (a public one waits for its address to confirm it). */
  adminBookingCall(eventId: string, parent: string): Call {
    const { body } = this.bookingCall(eventId, parent);
    return { url: '/api/events/register', body: { eventId, ...body } };
  }

  async booking(eventId: string, parent = 'Pat', name = 'registration') {
    const { registration } = await this.ok('/api/events/register', this.adminBookingCall(eventId, parent).body);
    return this.fix(name, registration.id as string);
  }

  /** A public booking requested, with its e-mailed link's secret made known (the mail's copy is not read). */
  async bookingRequested() {
    const eventId = await this.workshop();
    const response = await send(this.bookingCall(eventId, 'Pat'), randomUUID());
    expect(response.statusCode, `setup booking: ${response.body}`).toBe(200);
    const registrationId = this.fix('registration', response.json().registration.id as string);
    const token = `known-token-${this.tag}`;
    await db.query('update command.booking_links set token_hash = $2 where registration_id = $1', [
      registrationId,
      hash(token),
    ]);
    return { token };
  }

  async workshopInvoice(registrationId: string) {
    const { invoice } = await this.ok('/api/events/confirmInvoice', {
      registrationIds: [registrationId],
      discountAmount: 0,
    });
    return this.fix('workshopInvoice', invoice.id as string);
  }

  async consultation() {
    const family = await this.family();
    const { consultation } = await this.ok('/api/consultations', {
      client: family.clientId,
      child: family.childId,
      date: '2025-02-03',
    });
    return {
      ...family,
      consultationId: this.fix('consultation', consultation.id as string),
      invoiceId: this.fix('familyInvoice', consultation.invoiceId as string),
    };
  }

  /** A family's sign-in link with a known secret (the e-mailed one is never stored), as if mailed. */
  async familyLink(family: { contactId: string; clientId: string }) {
    const token = `known-link-${this.tag}-${randomUUID()}`;
    await db.query(
      `insert into auth.family_sign_in_links (token_hash, contact_id, client_id, expires_at)
        values ($1, $2, $3, now() + interval '15 minutes')`,
      [hash(token), family.contactId, family.clientId],
    );
    return token;
  }

  /** A family signed in: its session token, for a call sent as the family. */
  async familySession(family: { contactId: string; clientId: string }) {
    const response = await send({
      url: '/auth/family/session',
      body: { token: await this.familyLink(family) },
      public: true,
    });
    expect(response.statusCode, `setup family sign-in: ${response.body}`).toBe(200);
    return response.json().token as string;
  }

  /** A tutor sent an activation link, its code swapped for a known one (the e-mailed one is never stored). */
  async activationSent() {
    const tutorId = await this.tutor();
    await this.ok(`/api/tutors/activate/${tutorId}`, {});
    const code = `known-code-${this.tag}`;
    await db.query('update auth.activation_codes set code_hash = $2 where tutor_id = $1 and used_at is null', [
      tutorId,
      hash(code),
    ]);
    return { tutorId, activation: { activationCode: code, username: `t${this.tag}`, password: PASSWORD } };
  }
}

const lessonUrl = (tutorId: string) =>
  `/api/lessons/lesson?from=2025-03-10&to=2025-03-16&month=2025-03&tutorId=${tutorId}`;

const erasure = { reason: 'Asked by the family', confirm: true };

/** The representative command of every command route, keyed as the route table spells it. */
const SCENARIOS: Record<string, Scenario | Scenario[]> = {
  'POST /api/users': {
    setup: async (s) => ({
      url: '/api/users',
      body: { username: `a${s.tag}`, password: PASSWORD, role: 'auditor', name: `Audrey ${s.tag}` },
    }),
  },
  'POST /api/users/active/:userId': {
    // An admin's login: turned off under the lock, the admins that are on counted from their streams.
    setup: async (s) => {
      const { user } = await s.ok('/api/users', {
        username: `d${s.tag}`,
        password: PASSWORD,
        role: 'admin',
        name: `Dora ${s.tag}`,
      });
      return { url: `/api/users/active/${s.fix('user', user.id as string)}`, body: { active: false } };
    },
  },
  'POST /api/clients/contact': {
    setup: async (s) => ({ url: '/api/clients/contact', body: contactOf('Ann', 'Lee', s.tag) }),
  },
  'POST /api/clients/contact/:clientId': {
    setup: async (s) => {
      const { clientId } = await s.family();
      return { url: `/api/clients/contact/${clientId}`, body: contactOf('Sam', 'Second', s.tag) };
    },
  },
  'POST /api/contacts/:id': {
    setup: async (s) => {
      const { contactId } = await s.family();
      return {
        url: `/api/contacts/${contactId}`,
        body: { ...contactOf('Fay', 'Family', s.tag), phone: [{ type: 'Home', number: '01865 123456' }] },
      };
    },
  },
  'POST /api/clients/child/:clientId': {
    setup: async (s) => {
      const { clientId } = await s.family();
      return {
        url: `/api/clients/child/${clientId}`,
        body: { firstName: 'Lou', lastName: 'Family', dob: '2016-06-06' },
      };
    },
  },
  'POST /api/clients/child': {
    setup: async (s) => {
      const { clientId } = await s.family();
      return { url: '/api/clients/child', body: { clientId, firstName: 'Lou', lastName: 'Family', dob: '2016-06-06' } };
    },
  },
  'POST /api/clients/active/:id': {
    setup: async (s) => {
      const { clientId } = await s.family();
      return { url: `/api/clients/active/${clientId}`, body: { active: false } };
    },
  },
  'POST /api/clients': {
    setup: async (s) => {
      const { clientId } = await s.family();
      return { url: '/api/clients', body: { id: clientId, active: false } };
    },
  },
  'POST /api/clients/erase/:id': {
    setup: async (s) => {
      const { clientId } = await s.family();
      return { url: `/api/clients/erase/${clientId}`, body: erasure };
    },
  },
  'POST /api/workshops/registrations/erase/:id': {
    setup: async (s) => {
      const registrationId = await s.booking(await s.workshop());
      return { url: `/api/workshops/registrations/erase/${registrationId}`, body: erasure };
    },
  },
  'POST /api/tutors/erase/:id': {
    setup: async (s) => {
      const tutorId = await s.tutor();
      await s.ok(`/api/tutors/active/${tutorId}`, { active: false, endDate: '2025-01-31' });
      return { url: `/api/tutors/erase/${tutorId}`, body: { ...erasure, reason: 'Asked by the tutor' } };
    },
  },
  'POST /api/tutors/contact': {
    setup: async (s) => ({
      url: '/api/tutors/contact',
      body: {
        contact: contactOf('Nia', 'New', s.tag),
        tutor: { username: `n${s.tag}`, invoicePrefix: `N${s.tag}`, startDate: '2024-09-01' },
      },
    }),
  },
  'POST /api/tutors/tutor': {
    setup: async (s) => {
      const tutorId = await s.tutor();
      return {
        url: '/api/tutors/tutor',
        body: {
          contact: { ...contactOf('Tess', 'Tutor', s.tag), phone: [{ type: 'Home', number: '01865 654321' }] },
          tutor: { id: tutorId, username: `t${s.tag}`, invoicePrefix: `P${s.tag}` },
        },
      };
    },
  },
  'POST /api/tutors/active/:id': {
    setup: async (s) => ({
      url: `/api/tutors/active/${await s.tutor()}`,
      body: { active: false, endDate: '2025-01-31' },
    }),
  },
  'POST /api/tutors/activate/:tutorId': {
    setup: async (s) => ({ url: `/api/tutors/activate/${await s.tutor()}`, body: {} }),
  },
  'POST /api/tutors/partner/:tutorId': {
    setup: async (s) => {
      const { tutorId, activation } = await s.activationSent();
      const activated = await send({ url: '/auth/local/activate', body: activation, public: true });
      expect(activated.statusCode, `setup activation: ${activated.body}`).toBe(200);
      s.fix('user', activated.json().user.id);
      return { url: `/api/tutors/partner/${tutorId}`, body: { partner: true } };
    },
  },
  'POST /api/tutors/sessions/end/:tutorId': {
    setup: async (s) => ({ url: `/api/tutors/sessions/end/${await s.tutor()}`, body: {} }),
  },
  'POST /api/tutors/engagement': [
    {
      setup: async (s) => {
        const tutorId = await s.tutor();
        const { childId } = await s.family();
        return { url: '/api/tutors/engagement', body: { tutorId, studentId: childId, ...s.terms } };
      },
    },
    {
      setup: async (s) => {
        const { tutorId, engagementId } = await s.engagement();
        return {
          url: '/api/tutors/engagement',
          body: { id: engagementId, tutorId, ...s.terms, endDate: '2025-06-30', change: 'termination' },
        };
      },
    },
    {
      // A backdated change of rates: the lesson-repricing reactor reprices March's and April's lessons.
      setup: async (s) => {
        const { tutorId, engagementId } = await s.engagement();
        await s.ok(lessonUrl(tutorId), { tutorId, lesson: { engagementId, date: '2025-03-12', duration: 1 } });
        await s.ok(`/api/lessons/lesson?tutorId=${tutorId}`, {
          tutorId,
          lesson: { engagementId, date: '2025-04-09', duration: 1.5 },
        });
        return {
          url: '/api/tutors/engagement',
          body: { id: engagementId, tutorId, ...s.terms, rate: 32, startDate: '2025-03-01', change: 'rates' },
        };
      },
    },
  ],
  'POST /api/lessons/lesson': {
    setup: async (s) => {
      const { tutorId, engagementId } = await s.engagement();
      return {
        url: lessonUrl(tutorId),
        body: { tutorId, lesson: { engagementId, date: '2025-03-12', duration: 1.5 } },
      };
    },
  },
  'POST /api/invoices/save': {
    setup: async (s) => {
      const { tutorId, engagementId } = await s.engagement();
      await s.ok(lessonUrl(tutorId), { tutorId, lesson: { engagementId, date: '2025-03-12', duration: 1 } });
      return { url: '/api/invoices/save', body: { tutorId, year: 2025, month: 3 } };
    },
  },
  'POST /api/invoices/confirm': {
    setup: async (s) => ({ url: '/api/invoices/confirm', body: { id: await s.invoice() } }),
  },
  'POST /api/invoices/withdraw': {
    setup: async (s) => ({ url: '/api/invoices/withdraw', body: { id: await s.invoice() } }),
  },
  'POST /api/invoices/payment': {
    setup: async (s) => ({
      url: '/api/invoices/payment',
      body: { invoiceId: await s.invoice(), date: '2025-04-10', amount: 5 },
    }),
  },
  'POST /api/pay-statements': {
    global: true,
    setup: async (s) => {
      const n = payMonths++;
      const month = `${2001 + Math.floor(n / 12)}-${String((n % 12) + 1).padStart(2, '0')}`;
      return { url: '/api/pay-statements', body: { month: s.fix('month', month) } };
    },
  },
  'POST /api/pay-statements/confirm': {
    setup: async (s) => {
      // A statement issued on its stream as the pay-statements reactor issues it.
      const tutorId = await s.tutor();
      const { context } = product.command.actAs(
        { id: 'crash-retry', username: 'crash-retry', role: 'admin' },
        randomUUID(),
      );
      const statementId = payStatement.payStatementId(tutorId, '2025-03');
      await context.run(payStatement.payStatementStream(tutorId, '2025-03'), payStatement.payStatementDecider, {
        type: 'IssuePayStatement',
        statement: {
          statementId,
          tutorId,
          month: '2025-03',
          reference: `PS-${s.tag}`,
          date: '2025-04-01',
          lines: [],
          carriedPence: 0,
        },
      });
      return { url: '/api/pay-statements/confirm', body: { id: statementId } };
    },
  },
  'POST /api/tutors/bank-details/:tutorId': {
    setup: async (s) => ({
      url: `/api/tutors/bank-details/${await s.tutor()}`,
      body: { accountName: `Tess Tutor ${s.tag}`, sortCode: '12-34-56', accountNumber: '12345678' },
    }),
  },
  'POST /api/pay-runs': {
    global: true,
    setup: async (s) => ({ url: '/api/pay-runs', body: { month: s.fix('month', oldMonth(1901, payRunMonths++)) } }),
  },
  'POST /api/pay-runs/paid/:month': {
    global: true,
    setup: async (s) => {
      // A tutor with bank details and a confirmed statement owing £30.00, on a run prepared for its month.
      const month = s.fix('month', oldMonth(1951, paidRunMonths++));
      const tutorId = await s.tutor();
      await s.ok(`/api/tutors/bank-details/${tutorId}`, {
        accountName: `Tess Tutor ${s.tag}`,
        sortCode: '12-34-56',
        accountNumber: '12345678',
      });
      const stream = payStatement.payStatementStream(tutorId, month);
      const statementId = payStatement.payStatementId(tutorId, month);
      const asAdmin = product.command.actAs(
        { id: 'crash-retry', username: 'crash-retry', role: 'admin' },
        randomUUID(),
      );
      await asAdmin.context.run(stream, payStatement.payStatementDecider, {
        type: 'IssuePayStatement',
        statement: {
          statementId,
          tutorId,
          month,
          reference: `PS-${s.tag}`,
          date: `${month}-28`,
          lines: [
            {
              kind: 'lesson',
              lessonId: `lesson-${s.tag}`,
              lessonMonth: month,
              engagementId: `engagement-${s.tag}`,
              studentId: `student-${s.tag}`,
              date: `${month}-15`,
              duration: 100,
              amountPence: 4_000,
              sharePence: 1_000,
              payPence: 3_000,
              paidBeforePence: 0,
              linePence: 3_000,
              removed: false,
            },
          ],
          carriedPence: 0,
        },
      });
      const asTutor = product.command.actAs(
        { id: `tutor-${s.tag}`, username: s.tag, role: 'tutor', tutorId },
        randomUUID(),
      );
      await asTutor.context.run(stream, payStatement.payStatementDecider, {
        type: 'ConfirmPayStatement',
        actor: { role: 'tutor', tutorId },
      });
      await s.ok('/api/pay-runs', { month });
      s.fix('payment', payRunPaymentIdOf(month, statementId));
      return { url: `/api/pay-runs/paid/${month}`, body: { date: londonToday() } };
    },
  },
  'POST /api/consultations': {
    setup: async (s) => {
      const { clientId, childId } = await s.family();
      return { url: '/api/consultations', body: { client: clientId, child: childId, date: '2025-02-03' } };
    },
  },
  'POST /api/consultations/cancel': {
    setup: async (s) => ({ url: '/api/consultations/cancel', body: { id: (await s.consultation()).consultationId } }),
  },
  'POST /api/family-invoices/payment': {
    setup: async (s) => ({
      url: '/api/family-invoices/payment',
      body: { invoiceId: (await s.consultation()).invoiceId, date: '2025-02-10', amount: 50 },
    }),
  },
  'POST /api/agency': {
    global: true,
    setup: async (s) => {
      const { defaultConsultationPence, ...details } = seedAgencyDetails;
      const body = { ...details, defaultConsultationAmount: defaultConsultationPence / 100 };
      await s.ok('/api/agency', { ...body, phone: '01865 000 001' });
      return { url: '/api/agency', body: { ...body, phone: '01865 000 002' } };
    },
  },
  'POST /api/events': {
    setup: async (s) => ({ url: '/api/events', body: s.workshopBody() }),
  },
  'POST /api/events/cancel': {
    setup: async (s) => {
      const eventId = await s.workshop();
      await s.workshopInvoice(await s.booking(eventId));
      return { url: '/api/events/cancel', body: { id: eventId } };
    },
  },
  'POST /api/public/events/:eventId/registrations': {
    setup: async (s) => s.bookingCall(await s.workshop(), 'Pat'),
  },
  'POST /api/events/register': {
    setup: async (s) => s.adminBookingCall(await s.workshop(), 'Pat'),
  },
  'POST /api/public/bookings/confirm': {
    commandless: true,
    setup: async (s) => ({ url: '/api/public/bookings/confirm', body: await s.bookingRequested(), public: true }),
  },
  'POST /api/events/place': {
    setup: async (s) => {
      const eventId = await s.workshop('event', 1);
      await s.booking(eventId, 'Pat');
      const waiting = await s.booking(eventId, 'Wes', 'waiting');
      await s.ok('/api/events', { id: eventId, ...s.workshopBody(2) });
      return { url: '/api/events/place', body: { eventId, registrationId: waiting } };
    },
  },
  'POST /api/events/move': {
    setup: async (s) => {
      const fromEventId = await s.workshop('from');
      const toEventId = await s.workshop('to');
      const registrationId = await s.booking(fromEventId);
      return { url: '/api/events/move', body: { fromEventId, registrationId, toEventId } };
    },
  },
  'POST /api/events/delete': {
    setup: async (s) => {
      const eventId = await s.workshop();
      const registrationId = await s.booking(eventId);
      await s.workshopInvoice(registrationId);
      return { url: '/api/events/delete', body: { eventId, registrationId } };
    },
  },
  'POST /api/events/createInvoice': {
    setup: async (s) => {
      await s.booking(await s.workshop());
      return { url: '/api/events/createInvoice', body: { email: contactOf('Pat', 'Booker', s.tag).email } };
    },
  },
  'POST /api/events/confirmInvoice': {
    setup: async (s) => ({
      url: '/api/events/confirmInvoice',
      body: { registrationIds: [await s.booking(await s.workshop())], discountAmount: 5 },
    }),
  },
  'POST /auth/local/activate': {
    commandless: true,
    setup: async (s) => ({ url: '/auth/local/activate', body: (await s.activationSent()).activation, public: true }),
  },
  'POST /auth/family/session': {
    // The link spent, the sign-in recorded on the contact's family-access stream.
    commandless: true,
    setup: async (s) => {
      const family = await s.family();
      return { url: '/auth/family/session', body: { token: await s.familyLink(family) }, public: true };
    },
  },
  'POST /api/clients/family-access/:contactId': {
    setup: async (s) => {
      const family = await s.family();
      await s.familySession(family);
      return { url: `/api/clients/family-access/${family.contactId}`, body: { active: false } };
    },
  },
  'POST /api/family/bookings': {
    setup: async (s) => {
      const family = await s.family();
      const eventId = await s.workshop();
      return {
        url: '/api/family/bookings',
        body: { eventId, childIds: [family.childId] },
        family: await s.familySession(family),
      };
    },
  },
  'POST /api/family/erasure-request': {
    setup: async (s) => ({
      url: '/api/family/erasure-request',
      body: {},
      family: await s.familySession(await s.family()),
    }),
  },
  'POST /api/clients/erasure-request/decide/:clientId': {
    setup: async (s) => {
      const family = await s.family();
      const asked = await send(
        { url: '/api/family/erasure-request', body: {}, family: await s.familySession(family) },
        randomUUID(),
      );
      expect(asked.statusCode, `setup erasure request: ${asked.body}`).toBe(200);
      return { url: `/api/clients/erasure-request/decide/${family.clientId}`, body: { approve: true } };
    },
  },
  'POST /api/family-invoices/lesson-billing': {
    global: true,
    // Months long before any lesson: the request is recorded and its reactor finds nothing to bill.
    setup: async (s) => ({
      url: '/api/family-invoices/lesson-billing',
      body: { month: s.fix('month', oldMonth(1801, lessonBillingMonths++)) },
    }),
  },
  'POST /api/family-invoices/lesson-credit': {
    global: true,
    setup: async (s) => {
      // A family billed this month for a 2 h lesson the agency sells, which was 1 h after all.
      const { tutorId, engagementId } = await s.engagement();
      const today = londonToday();
      const month = today.slice(0, 7);
      const { context } = product.command.actAs(
        { id: 'crash-retry', username: 'crash-retry', role: 'admin' },
        randomUUID(),
      );
      await context.run(moneyModel.engagementModelStream(engagementId), moneyModel.engagementModelDecider, {
        type: 'ChooseEngagementMoneyModel',
        engagementId,
        choice: { model: 'agency-sells-tuition', from: `${month}-01` },
        today,
        actor: { role: 'admin' },
      });
      const url = `/api/lessons/lesson?month=${month}`;
      const { lesson } = await s.ok(url, { tutorId, lesson: { engagementId, date: today, duration: 2 } });
      await s.ok('/api/family-invoices/lesson-billing', { month });
      await settled();
      await s.ok(url, { tutorId, lesson: { id: lesson.id, engagementId, date: today, duration: 1 } });
      const clientId = [...s.fixtures].find(([, name]) => name === '<client>')?.[0] ?? '';
      return { url: '/api/family-invoices/lesson-credit', body: { clientId } };
    },
  },
  'POST /api/agency/reminders': {
    global: true,
    setup: async (s) => {
      await s.ok('/api/agency/reminders', { days: [3], lateFee: 1 });
      return { url: '/api/agency/reminders', body: { days: [7, 14], lateFee: 5 } };
    },
  },
  'POST /api/agency/money-model': {
    global: true,
    // A month far ahead, another each run: every run records a choice of its own.
    setup: async (s) => ({
      url: '/api/agency/money-model',
      body: { model: 'introduction', from: s.fix('month', oldMonth(2090, moneyModelMonths++)), vatRate: 0 },
    }),
  },
  'POST /api/engagements/money-model/:engagementId': {
    setup: async (s) => {
      const { engagementId } = await s.engagement();
      return {
        url: `/api/engagements/money-model/${engagementId}`,
        body: { model: 'agency-sells-tuition', from: '2090-01' },
      };
    },
  },
  'POST /auth/local/password': {
    commandless: true,
    setup: async (s) => {
      const { user } = await s.ok('/api/users', {
        username: `r${s.tag}`,
        password: PASSWORD,
        role: 'admin',
        name: `Rex ${s.tag}`,
      });
      s.fix('user', user.id);
      const token = `known-reset-${s.tag}`;
      await db.query(
        `insert into auth.reset_tokens (token_hash, user_id, expires_at) values ($1, $2, now() + interval '1 hour')`,
        [hash(token), user.id],
      );
      return {
        url: '/auth/local/password',
        body: { resetToken: token, password: 'Another-Long-Pass-88' },
        public: true,
      };
    },
  },
  'POST /api/family/contact/:contactId': {
    // Its phone and address changed on the family's stream, the rest of the contact kept as it is.
    setup: async (s) => {
      const family = await s.family();
      return {
        url: `/api/family/contact/${family.contactId}`,
        body: {
          address: ['2 New Road', 'Oxford'],
          postcode: 'OX2 2BB',
          phone: [{ type: 'Home', number: '01865 000002' }],
        },
        family: await s.familySession(family),
      };
    },
  },
  'POST /api/family/email-change/:contactId': {
    setup: async (s) => {
      const family = await s.family();
      return {
        url: `/api/family/email-change/${family.contactId}`,
        body: { email: `moved.${s.tag}@example.com` },
        family: await s.familySession(family),
      };
    },
  },
  'POST /api/clients/email-change/decide/:contactId': {
    // Confirmed on its own stream; its reactor then changes the contact's address on the family's.
    setup: async (s) => {
      const family = await s.family();
      const asked = await send(
        {
          url: `/api/family/email-change/${family.contactId}`,
          body: { email: `confirmed.${s.tag}@example.com` },
          family: await s.familySession(family),
        },
        randomUUID(),
      );
      expect(asked.statusCode, `setup e-mail change: ${asked.body}`).toBe(200);
      return { url: `/api/clients/email-change/decide/${family.contactId}`, body: { approve: true } };
    },
  },
};

/** Sends a command; its command id in the body and as the Idempotency-Key (a body may not name one). */
function send(call: Call, commandId?: string) {
  return product.command.app.inject({
    method: 'POST',
    url: call.url,
    payload: commandId ? { ...call.body, commandId } : call.body,
    headers: {
      ...(call.public ? {} : { authorization: `Bearer ${call.family ?? admin}` }),
      ...(commandId ? { 'idempotency-key': commandId } : {}),
    },
    remoteAddress: call.remoteAddress,
  });
}

/**
 * Every reactor and every projection has passed the last event of the log that it handles, and
 * none is stopped at an event: whatever follows from the commands so far has happened and shows.
 * (A reactor moves its checkpoint past events it does not handle lazily, up to a second later:
 * those change nothing, so waiting for them would only make every run a second longer.)
 */
async function settled() {
  await vi.waitFor(
    async () => {
      const { rows } = await db.query<{ name: string }>(
        `select name from (
           select name, handles, failure, commit_position, prepare_position from command.reactor_checkpoints
           union all
           select name, handles, failure, commit_position, prepare_position from read.projection_checkpoints) c
          where c.failure is not null
             or exists (select 1 from es.events e
                         where (e.transaction_id, e.global_position) > (c.commit_position::text::xid8, c.prepare_position)
                           and e.event_type = any(c.handles))`,
      );
      if (rows.length) throw new Error(`still behind: ${rows.map((row) => row.name).join(', ')}`);
    },
    { timeout: 60_000, interval: 10 },
  );
}

const ID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\b[0-9a-f]{32}\b/gi;
const TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?/g;
const TAG = /x\d+x/gi;
/** A session token (a JWT): each sign-in has its own. */
const TOKEN = /eyJ[\w-]+\.[\w-]+\.[\w-]+/g;
/** The month a stream id ends with: an agency-wide scenario (a pay run) takes a month of its own in each run. */
const STREAM_MONTH = /-\d{4}-\d{2}$/;
/** A stream id with its ids masked: where a fault landed, comparable between runs. */
const category = (streamId: string) =>
  streamId.replace(ID, '*').replace(TAG, '<run>').replace(STREAM_MONTH, '-<month>');

/**
 * Makes one run's values comparable with another's: the setup's ids by their names, other ids by
 * placeholders in order of first appearance, the run's tag, timestamps, and the numbers of
 * document references (an agency-wide sequence: they differ between runs, never within one).
 */
function normaliser(fixtures: Map<string, string>) {
  const ids = new Map<string, string>();
  const text = (value: string, mask: boolean) => {
    let out = value.replace(TOKEN, '<token>');
    for (const [fixture, name] of fixtures) out = out.split(fixture).join(mask ? '*' : name);
    out = out.replace(ID, (id) => {
      if (mask) return '*';
      const key = id.toLowerCase();
      if (!ids.has(key)) ids.set(key, `<id${ids.size + 1}>`);
      return ids.get(key) as string;
    });
    return out.replace(TIME, '<time>').replace(TAG, '<run>');
  };
  const value = (input: unknown, mask: boolean, key = ''): unknown => {
    if (typeof input === 'string') {
      const out = text(input, mask);
      return /reference$/i.test(key) ? out.replace(/\d+/g, '<n>') : out;
    }
    if (typeof input === 'number' && key === 'number') return '<n>';
    if (Array.isArray(input)) return input.map((item) => value(item, mask));
    if (input && typeof input === 'object') {
      // Keys in one order: a stored answer comes back from jsonb with its keys reordered.
      const entries = Object.entries(input).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return Object.fromEntries(entries.map(([k, v]) => [k, value(v, mask, k)]));
    }
    return input;
  };
  return {
    /** The same value with its ids by name or placeholder. */
    of: (input: unknown) => value(input, false),
    /** The value with every id masked alike: an order for events that does not depend on their ids. */
    masked: (input: unknown) => JSON.stringify(value(input, true)),
  };
}

type Collected = { streamId: string; type: string; data: unknown; mails: string[]; commandId: string };

/** Every event that followed from the commands (their correlation ids), read through the store (personal fields clear). */
async function following(correlationIds: string[]): Promise<Collected[]> {
  const { rows } = await db.query<{ event_id: string; stream_id: string }>(
    `select event_id::text, stream_id from es.events where metadata->>'correlationId' = any($1)
      order by transaction_id, global_position`,
    [correlationIds],
  );
  const wanted = new Map<string, Set<string>>();
  for (const row of rows) {
    if (!wanted.has(row.stream_id)) wanted.set(row.stream_id, new Set());
    wanted.get(row.stream_id)?.add(row.event_id.toLowerCase());
  }
  const events: RecordedEvent[] = [];
  for (const [streamId, ids] of wanted) {
    const recorded = await product.command.deps.store.readStream(streamId);
    events.push(...recorded.filter((event) => ids.has(event.id.toLowerCase())));
  }
  const mails = await db.query<{ event_id: string; message_index: number; outcome: string }>(
    'select event_id, message_index, outcome from command.mail_sent where event_id = any($1)',
    [rows.map((row) => row.event_id)],
  );
  return events.map((event) => ({
    streamId: event.streamId,
    type: event.type,
    data: event.data,
    commandId: event.metadata.commandId,
    mails: mails.rows
      .filter((mail) => mail.event_id.toLowerCase() === event.id.toLowerCase())
      .map((mail) => `${mail.message_index}:${mail.outcome}`)
      .sort(),
  }));
}

/** The events as a sorted list of normalised lines (a multiset), in an order that does not depend on ids. */
function normalisedEvents(events: Collected[], fixtures: Map<string, string>) {
  const { of, masked } = normaliser(fixtures);
  const ordered = events
    .map((event) => ({ event, key: masked([event.streamId, event.type, event.data, event.mails]) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return ordered
    .map(({ event }) =>
      JSON.stringify({
        stream: of(event.streamId),
        type: event.type,
        data: of(event.data),
        mails: event.mails,
      }),
    )
    .sort();
}

type Answer = { status: number; body: unknown };
function normalisedAnswer(answer: Answer, fixtures: Map<string, string>) {
  const { position: _position, visible: _visible, ...body } = (answer.body ?? {}) as Record<string, unknown>;
  return { status: answer.status, body: normaliser(fixtures).of(body) };
}

type PointKind = { own: boolean; step: Exclude<FaultStep['step'], 'claimed'>; category: string };
type Point = PointKind & { ordinal: number; label: string };
const pointKey = (p: PointKind) => `${p.own ? 'own' : 'reaction'} ${p.step}${p.category ? ` ${p.category}` : ''}`;

/**
 * The fault hook of one run: counts each kind of step (the command's own, or a reaction's append on
 * a stream category) and throws once at `target`. For a command without a command id, its own id
 * is the first one seen while its request is in flight.
 */
class FaultPlan {
  readonly calls: Point[] = [];
  readonly ownIds = new Set<string>();
  inFlight = false;
  fired = false;
  private readonly counts = new Map<string, number>();

  constructor(
    private readonly commandless: boolean,
    private readonly target?: Point,
  ) {}

  at(fault: FaultStep) {
    if (this.commandless && this.inFlight && this.ownIds.size === 0) this.ownIds.add(fault.commandId);
    if (fault.step === 'claimed') return;
    const own = this.ownIds.has(fault.commandId);
    if (!own && fault.step !== 'appended') return;
    const kind: PointKind = {
      own,
      step: fault.step,
      category: fault.step === 'appended' ? category(fault.streamId) : '',
    };
    const label = pointKey(kind);
    const ordinal = (this.counts.get(label) ?? 0) + 1;
    this.counts.set(label, ordinal);
    this.calls.push({ ...kind, ordinal, label: `${label} #${ordinal}` });
    if (this.target && !this.fired && this.target.label === `${label} #${ordinal}`) {
      this.fired = true;
      throw new Error(`a crash injected at ${this.target.label}`);
    }
  }
}

let plan: FaultPlan | undefined;

type Run = {
  fixtures: Map<string, string>;
  /** The command's own ids (one, or one per attempt of a command without an id): what followed carries them. */
  commandIds: string[];
  events: Collected[];
  answers: Answer[];
  calls: Point[];
  fired: boolean;
};

/** A run's setup: what its command needs, and the command. */
async function prepare(scenario: Scenario) {
  const setup = new RunSetup();
  const call = await scenario.setup(setup);
  return { setup, call };
}

/** One run's setup, once everything that follows from it has happened. */
async function prepareAlone(scenario: Scenario) {
  const prepared = await prepare(scenario);
  await settled();
  return prepared;
}

/**
 * Sends the command (`attempts` times with one command id), with a crash at `target` if given;
 * waits until everything has caught up and collects what followed. Everything before it has
 * settled: the faults it counts are its own command's and its reactions'.
 */
async function execute(
  scenario: Scenario,
  prepared: Awaited<ReturnType<typeof prepare>>,
  attempts: number,
  target?: Point,
): Promise<Run> {
  const commandId = randomUUID();
  const current = new FaultPlan(!!scenario.commandless, target);
  plan = current;
  const answers: Answer[] = [];
  const commandIds = new Set<string>(scenario.commandless ? [] : [commandId]);
  try {
    for (let attempt = 0; attempt < attempts; attempt++) {
      current.inFlight = true;
      current.ownIds.clear();
      if (!scenario.commandless) current.ownIds.add(commandId);
      const response = await send(prepared.call, scenario.commandless ? undefined : commandId);
      current.inFlight = false;
      for (const id of current.ownIds) commandIds.add(id);
      answers.push({ status: response.statusCode, body: response.json() });
    }
    await settled();
  } finally {
    plan = undefined;
  }
  return {
    fixtures: prepared.setup.fixtures,
    commandIds: [...commandIds],
    events: await following([...commandIds]),
    answers,
    calls: current.calls,
    fired: current.fired,
  };
}

/** The clean runs, by scenario: the static check reads the streams each command wrote itself. */
const cleanRuns = new Map<string, Run>();

const scenarioList = Object.entries(SCENARIOS).flatMap(([route, entry]) =>
  [entry].flat().map((scenario, index, all) => ({
    route,
    name: all.length > 1 ? `${route} (${index + 1})` : route,
    scenario,
  })),
);

describe('every command route: a crash anywhere, retried or not, ends as one clean run', () => {
  const routes: string[] = [];

  beforeAll(async () => {
    product = await startTestProduct();
    for (const { tree, method, url } of product.routes)
      if (tree === 'command' && method === 'POST') routes.push(`POST ${url}`);
    db = new pg.Pool({ connectionString: product.databaseUrl, max: 4 });
    admin = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
    injectFaults({ at: (fault) => plan?.at(fault) });
  });
  afterAll(async () => {
    if (product) injectFaults(undefined);
    await db?.end();
    await product?.dispose();
  });

  it('has a scenario (or an exclusion) for every command route, and a route for every scenario', () => {
    expect(routes).toContain('POST /api/invoices/save');
    const missing = routes.filter((route) => !SCENARIOS[route] && !EXCLUDED[route]);
    expect(missing, 'command routes without a scenario: add a scenario to SCENARIOS').toEqual([]);
    const gone = [...Object.keys(SCENARIOS), ...Object.keys(EXCLUDED), ...Object.keys(PENDING)].filter(
      (route) => !routes.includes(route),
    );
    expect(gone, 'scenarios, exclusions or pending entries whose route is gone').toEqual([]);
  });

  /** The next scenario's clean setup, made beside this one's run setups (never while a run is counting faults). */
  const cleanSetups = new Map<string, ReturnType<typeof prepare>>();

  it.each(scenarioList)('$name', async ({ route, name, scenario }) => {
    // A command with a command id is sent twice: the second is a clean retry (the recorded answer).
    const early = cleanSetups.get(name);
    cleanSetups.delete(name);
    const clean = await execute(
      scenario,
      early ? await early : await prepareAlone(scenario),
      scenario.commandless ? 1 : 2,
    );
    const [first, repeat] = clean.answers as [Answer, Answer?];
    expect(first.status, `${name}: the clean run's answer ${JSON.stringify(first.body)}`).toBe(200);
    if (repeat) expect(repeat.status, `${name}: a clean retry`).toBe(200);
    cleanRuns.set(name, clean);
    const expectedEvents = normalisedEvents(clean.events, clean.fixtures);
    // Without a command id there is no recorded answer: a retry after a crash completes the
    // command, so it is answered as the command was.
    const expectedRetry = normalisedAnswer(repeat ?? first, clean.fixtures);

    // Each place a fault landed in the clean run is a crash point; a reaction's only without a retry
    // (the reactor is the one that retries it).
    const points = clean.calls;
    const variants = points.flatMap((point) =>
      (point.own ? [false, true] : [false]).map((retry) => ({ point, retry })),
    );
    // The runs' setups are independent (each makes its own entities), so they are made together
    // (with the next scenario's clean one); one that changes agency-wide state is made just before
    // its own command.
    const next = scenarioList[scenarioList.findIndex((entry) => entry.name === name) + 1];
    if (next && !scenario.global && !next.scenario.global) cleanSetups.set(next.name, prepare(next.scenario));
    const setups = scenario.global ? [] : await Promise.all(variants.map(() => prepare(scenario)));
    await Promise.allSettled(cleanSetups.values());
    await settled();
    const failures: string[] = [];
    for (const [index, { point, retry }] of variants.entries()) {
      const run = await execute(scenario, setups[index] ?? (await prepareAlone(scenario)), retry ? 2 : 1, point);
      const variant = `${point.label}, ${retry ? 'retried' : 'not retried'}`;
      if (!run.fired) {
        failures.push(`${variant}: the run never reached this point`);
        continue;
      }
      const events = normalisedEvents(run.events, run.fixtures);
      if (JSON.stringify(events) !== JSON.stringify(expectedEvents)) {
        const missing = expectedEvents.filter((line) => !events.includes(line));
        const extra = events.filter((line) => !expectedEvents.includes(line));
        failures.push(
          `${variant}: other events than a clean run's\n  missing: ${missing.join('\n           ')}\n  extra:   ${extra.join('\n           ')}`,
        );
      }
      if (retry) {
        const answer = normalisedAnswer(run.answers[1] as Answer, run.fixtures);
        if (JSON.stringify(answer) !== JSON.stringify(expectedRetry)) {
          failures.push(
            `${variant}: answered ${JSON.stringify(answer)}\n  where a clean run answers ${JSON.stringify(expectedRetry)}`,
          );
        }
      }
    }
    if (PENDING[route]) {
      expect(failures.length, `${route} passes now: take it off PENDING`).toBeGreaterThan(0);
    } else {
      expect(failures, `${name}: crash points ${points.map((p) => p.label).join(', ')}`).toEqual([]);
    }
  });

  it("no route handler appends to more than one stream (a command's own events are on one stream)", () => {
    // A scenario without a clean run has failed on its own already.
    expect(cleanRuns.size, 'clean runs to look at').toBeGreaterThan(0);
    const violators = [...cleanRuns].flatMap(([name, run]) => {
      const streams = new Set(run.events.filter((e) => run.commandIds.includes(e.commandId)).map((e) => e.streamId));
      return streams.size > 1 ? [`${name}: ${[...streams].map(category).join(', ')}`] : [];
    });
    const pending = (line: string) => Object.keys(PENDING).some((route) => line.startsWith(route));
    expect(violators.filter((line) => !pending(line))).toEqual([]);
  });

  it('leaves no document reference or number given twice, and read models equal to a rebuild from the events', async () => {
    await settled();
    const repeated = await db.query(
      `select event_type, data->>'reference' as reference, count(*)::int as times from es.events
        where event_type in ('FamilyInvoiceIssued', 'FamilyCreditNoteIssued', 'InvoiceGenerated')
        group by 1, 2 having count(*) > 1`,
    );
    expect(repeated.rows).toEqual([]);
    const numbers = await db.query(
      `select event_type, data->>'tutorId' as tutor, data->>'number' as number, count(*)::int as times from es.events
        where event_type in ('FamilyInvoiceNumberTaken', 'InvoiceNumberTaken') group by 1, 2, 3 having count(*) > 1`,
    );
    expect(numbers.rows).toEqual([]);
    const live = await readModels(db);
    await rebuildAsAFreshProcess(product, db);
    expect(await readModels(db)).toEqual(live);
  });
});
