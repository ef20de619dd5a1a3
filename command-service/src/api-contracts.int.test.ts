import {
  activityAnswer,
  agencyDetailsAnswer,
  alternativesAnswer,
  clientAnswer,
  clientChildrenAnswer,
  clientListAnswer,
  consultationListAnswer,
  contactAnswer,
  currentUserAnswer,
  dashboardAnswer,
  engagementAnswer,
  engagementOnAnswer,
  eventListAnswer,
  eventRegistrationsAnswer,
  familyLedgerAnswer,
  familyOverviewAnswer,
  healthAnswer,
  historyAnswer,
  invoiceAnswer,
  invoiceListAnswer,
  invoicePreviewAnswer,
  invoiceStatusAnswer,
  invoiceSummaryAnswer,
  invoiceTraceAnswer,
  lessonListAnswer,
  publicEventsAnswer,
  registrationAnswer,
  sessionAnswer,
  timesheetAnswer,
  tutorAnswer,
  tutorListAnswer,
  tutorSessionsAnswer,
  workshopInvoiceDraft,
  workshopsReportAnswer,
} from '@agency/contracts';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import { contact, testRequests } from '@agency/scripts/testing/test-requests';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';

/** A date `days` from today (UTC), as a query string names it. */
const dayFromNow = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

/** Every route of the app, with the tree that adds it (HEAD twins and catch-alls aside). */
const routes: { service: string; method: string; url: string; hidden: boolean }[] = [];

describe('the API contracts: every answer as its schema says, every route in the OpenAPI description', () => {
  let product: TestProduct;
  let admin: string;
  let tutor: { id: string; token: string; contactId: string };
  let clientId: string;
  let contactId: string;
  let engagementId: string;
  let invoiceId: string;
  let eventId: string;
  let registrationId: string;

  const { ok, get } = testRequests(
    () => product,
    () => admin,
  );

  beforeAll(async () => {
    product = await startTestProduct();
    for (const { tree, method, url, schema } of product.routes) {
      // HEAD twins and the UI's files are no API routes of their own.
      if (method === 'HEAD' || url.includes('*')) continue;
      routes.push({ service: tree, method, url, hidden: Boolean((schema as { hide?: boolean } | undefined)?.hide) });
    }
    admin = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
    const made = await ok('/api/tutors/contact', {
      contact: contact('Tess', 'Turing'),
      tutor: { username: 'tess', invoicePrefix: 'TT', startDate: '2025-01-01' },
    });
    await ok('/api/users', {
      username: 'tess.t',
      password: 'contracts-pass-1',
      role: 'tutor',
      tutorId: made.tutor.id,
      name: 'Tess',
    });
    const detail = await get(`/api/tutors/${made.tutor.id}`);
    tutor = {
      id: made.tutor.id,
      token: await product.login('tess.t', 'contracts-pass-1'),
      contactId: detail.body.tutor.contact.id,
    };
    const family = await ok('/api/clients/contact', contact('Pat', 'Parent'));
    clientId = family.client.id;
    contactId = family.contact.id;
    const { child } = await ok(`/api/clients/child/${clientId}`, {
      firstName: 'Kit',
      lastName: 'Parent',
      dob: '2014-02-03',
    });
    const started = await ok('/api/tutors/engagement', {
      tutorId: tutor.id,
      studentId: child.id,
      rate: 40,
      commissionPct: 25,
      partnerPct: 10,
      startDate: '2025-01-01',
      subjects: ['Maths'],
    });
    engagementId = started.engagement.id;
    await ok('/api/lessons/lesson?from=2025-03-03&to=2025-03-09&month=2025-03', {
      tutorId: tutor.id,
      lesson: { engagementId, date: '2025-03-04', duration: 1.5 },
    });
    await ok('/api/invoices/save', { tutorId: tutor.id, year: 2025, month: 3 });
    await ok('/api/consultations', {
      client: clientId,
      child: child.id,
      date: '2025-03-05',
      assessment: true,
      assessmentDetails: { subjects: ['Maths'] },
    });
    invoiceId = (await get('/api/invoices?year=2025&month=3')).body.invoices[0].id;
    const { event } = await ok('/api/events', {
      description: 'Summer science',
      dateTime: '2099-07-20T10:00',
      durationMinutes: 180,
      price: 40,
      capacity: 3,
      location: 'Village hall',
    });
    eventId = event.id;
    const booked = await ok('/api/events/register', {
      eventId,
      contact: { ...contact('Bo', 'Booker'), phone: '07700 900000' },
      children: [{ firstName: 'Ann', lastName: 'Booker', school: 'St Mary', schoolYear: '5', allergies: 'Peanuts' }],
    });
    registrationId = booked.registration.id;
  });
  afterAll(async () => {
    await product?.dispose();
  });

  it('answers each query exactly as its contract schema describes, for staff and for a tutor', async () => {
    const queries: [string, z.ZodType, ('admin' | 'tutor')[]][] = [
      ['/auth/local/me', sessionAnswer, ['admin', 'tutor']],
      ['/api/users/me', currentUserAnswer, ['admin', 'tutor']],
      ['/api/clients?includeInactive=Y', clientListAnswer, ['admin', 'tutor']],
      [`/api/clients/${clientId}`, clientAnswer, ['admin', 'tutor']],
      [`/api/clients/${clientId}/children`, clientChildrenAnswer, ['admin', 'tutor']],
      ['/api/clients/all/children', clientChildrenAnswer, ['admin']],
      [`/api/contacts/${contactId}`, contactAnswer, ['admin', 'tutor']],
      [`/api/contacts/${tutor.contactId}`, contactAnswer, ['admin', 'tutor']],
      ['/api/tutors?includeInactive=Y', tutorListAnswer, ['admin']],
      [`/api/tutors/${tutor.id}`, tutorAnswer, ['admin', 'tutor']],
      [`/api/tutors/${tutor.id}/sessions`, tutorSessionsAnswer, ['admin']],
      [`/api/tutors/engagement/${tutor.id}/${engagementId}`, engagementAnswer, ['admin', 'tutor']],
      [`/api/tutors/engagement/${tutor.id}/${engagementId}/on/2025-03-04`, engagementOnAnswer, ['admin', 'tutor']],
      ['/api/lessons?year=2025&month=3', lessonListAnswer, ['admin', 'tutor']],
      [
        `/api/lessons/timesheet?from=2025-03-03&to=2025-03-09&month=2025-03&tutorId=${tutor.id}`,
        timesheetAnswer,
        ['admin', 'tutor'],
      ],
      ['/api/invoices/?year=2025&month=3', invoiceListAnswer, ['admin', 'tutor']],
      ['/api/invoices?year=2025', invoiceListAnswer, ['admin', 'tutor']],
      [`/api/invoices/summary?year=2025&month=3&tutorId=${tutor.id}`, invoiceSummaryAnswer, ['admin', 'tutor']],
      [`/api/invoices/${invoiceId}`, invoiceAnswer, ['admin', 'tutor']],
      [`/api/invoices/preview?year=2025&month=3&tutorId=${tutor.id}`, invoicePreviewAnswer, ['admin', 'tutor']],
      [`/api/invoices/preview?year=2025&month=4&tutorId=${tutor.id}`, invoicePreviewAnswer, ['admin', 'tutor']],
      ['/api/reports/invoiceStatus?year=2025&month=3', invoiceStatusAnswer, ['admin']],
      ['/api/health', healthAnswer, ['admin', 'tutor']],
      ['/api/dashboard', dashboardAnswer, ['admin', 'tutor']],
      ['/api/consultations', consultationListAnswer, ['admin']],
      ['/api/consultations?year=2025&month=3', consultationListAnswer, ['admin']],
      ['/api/family-invoices', familyLedgerAnswer, ['admin']],
      [`/api/clients/${clientId}/overview`, familyOverviewAnswer, ['admin']],
      ['/api/agency', agencyDetailsAnswer, ['admin', 'tutor']],
      [`/api/history/engagement-${engagementId}`, historyAnswer, ['admin']],
      [`/api/invoices/trace/${invoiceId}`, invoiceTraceAnswer, ['admin']],
      [`/api/activity?from=${dayFromNow(-1)}&to=${dayFromNow(1)}`, activityAnswer, ['admin']],
      ['/api/public/events', publicEventsAnswer, ['admin']],
      ['/api/events?includePast=Y', eventListAnswer, ['admin']],
      [`/api/events/registrations/${eventId}`, eventRegistrationsAnswer, ['admin']],
      [`/api/events/registrations/${eventId}/${registrationId}`, registrationAnswer, ['admin']],
      [`/api/events/alternatives/${eventId}`, alternativesAnswer, ['admin']],
      ['/api/events/invoice-draft?email=bo.booker@example.com', workshopInvoiceDraft, ['admin']],
      ['/api/reports/workshops?from=2099-01-01&to=2099-12-31', workshopsReportAnswer, ['admin']],
    ];
    const tokens = { admin, tutor: tutor.token };
    for (const [url, schema, callers] of queries) {
      for (const caller of callers) {
        const answer = await get(url, tokens[caller]);
        expect(answer.status, `${caller} ${url}: ${JSON.stringify(answer.body)}`).toBe(200);
        // Parsing strips what the schema does not name: equal means every field is described.
        expect(schema.parse(answer.body), `${caller} ${url}`).toEqual(answer.body);
      }
    }
  });

  it('describes every route of both trees in one document at /api/docs/json, and serves the API browser at /api/docs', async () => {
    const response = await fetch(`${product.url}/api/docs/json`);
    expect(response.status).toBe(200);
    const description = (await response.json()) as {
      openapi: string;
      paths: Record<
        string,
        Record<
          string,
          {
            parameters?: { name: string }[];
            requestBody?: { content?: Record<string, { schema?: unknown }> };
            responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
          }
        >
      >;
    };
    expect(description.openapi).toMatch(/^3\./);
    const missing = routes
      .filter((route) => !route.hidden)
      .map((route) => ({ ...route, path: route.url.replace(/:([A-Za-z]+)/g, '{$1}') }))
      .filter((route) => !description.paths[route.path]?.[route.method.toLowerCase()])
      .map((route) => `${route.service}: ${route.method} ${route.url}`);
    expect(missing, Object.keys(description.paths).join(' ')).toEqual([]);
    // Every GET declares its answer (a JSON schema, or the document or stream it sends), every POST its body.
    const described = (route: (typeof routes)[number]) =>
      description.paths[route.url.replace(/:([A-Za-z]+)/g, '{$1}')]?.[route.method.toLowerCase()];
    const withoutAnswer = routes
      .filter((route) => !route.hidden && route.method === 'GET')
      .filter((route) => !Object.values(described(route)?.responses?.['200']?.content ?? {}).some((c) => c.schema))
      .map((route) => `${route.service}: GET ${route.url}`);
    expect(withoutAnswer, 'GET routes without an answer schema').toEqual([]);
    const withoutBody = routes
      .filter((route) => !route.hidden && route.method === 'POST')
      .filter((route) => !described(route)?.requestBody?.content?.['application/json']?.schema)
      .map((route) => `${route.service}: POST ${route.url}`);
    expect(withoutBody, 'POST routes without a body schema').toEqual([]);
    // The login's body is described from its contract; a document is described as what it is.
    const login = description.paths['/auth/local']?.post?.requestBody?.content?.['application/json']?.schema;
    expect(JSON.stringify(login)).toContain('password');
    const pdf = description.paths['/api/invoices/doc/{id}']?.get?.responses?.['200']?.content;
    expect(Object.keys(pdf ?? {})).toEqual(['application/pdf']);
    expect(routes.some((route) => route.service === 'query' && route.url === '/api/lessons')).toBe(true);
    expect(routes.some((route) => route.service === 'command' && route.url === '/api/lessons/lesson')).toBe(true);
    // Described from the contracts: a query's parameters, a command's body.
    const lessonsQuery = description.paths['/api/lessons'].get.parameters?.map((parameter) => parameter.name);
    expect(lessonsQuery).toEqual(expect.arrayContaining(['year', 'month', 'tutorId']));
    expect(description.paths['/api/lessons/lesson'].post.requestBody).toBeDefined();
    // The description names every field, the partner's share too: it is not an answer holding anyone's data.
    expect(JSON.stringify(description.paths['/api/lessons'].get)).toContain('partnerCommission');
    expect(description.paths['/api/tutors/partner/{tutorId}']?.post).toBeDefined();

    const page = await fetch(`${product.url}/api/docs`, { redirect: 'follow' });
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/swagger/i);
  });
});
