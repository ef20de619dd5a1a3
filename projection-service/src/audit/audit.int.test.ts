import { randomUUID } from 'node:crypto';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * An auditor's reads of the event store itself: the history of any stream in words, and an
 * invoice traced to its lessons and the engagement periods that priced them.
 */
describe('audit: history and invoice trace (real PostgreSQL)', () => {
  let product: TestProduct;
  let admin: string;
  let auditor: string;
  let partner: string;
  let tutor: string;
  const ids = { tutor: '', client: '', engagement: '', invoice: '', first: '', second: '' };

  const status = async (url: string, token: string) =>
    (await fetch(`${product.url}${url}`, { headers: { authorization: `Bearer ${token}` } })).status;
  const week = (date: string) => `?from=${date}&to=${date}&month=${date.slice(0, 7)}&tutorId=${ids.tutor}`;
  const saveLesson = async (lesson: { id?: string; engagementId: string; date: string; duration: number }) =>
    (await product.api(admin).post(`/api/lessons/lesson${week(lesson.date)}`, { tutorId: ids.tutor, lesson })).lesson
      .id as string;
  const login = async (username: string, role: string, tutorId?: string) => {
    const password = `${username}-Audit-pass-42`;
    await product.api(admin).post('/api/users', { username, password, role, tutorId, name: `${username} Person` });
    return product.login(username, password);
  };

  beforeAll(async () => {
    product = await startTestProduct();
    admin = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
    const api = product.api(admin);
    const contact = (firstName: string) => ({
      firstName,
      lastName: 'Audit',
      address: ['1 Ledger Lane'],
      postcode: 'OX1 1AA',
      email: `${firstName.toLowerCase()}.audit@example.com`,
      phone: [{ type: 'Mobile', number: '07700 900001' }],
    });
    const made = await api.post('/api/tutors/contact', {
      contact: contact('Tess'),
      tutor: { username: 'tess.audit', invoicePrefix: 'TA', startDate: '2024-09-01' },
    });
    ids.tutor = made.tutor.id;
    const family = await api.post('/api/clients/contact', contact('Pat'));
    ids.client = family.client.id;
    const { child } = await api.post(`/api/clients/child/${ids.client}`, {
      firstName: 'Kit',
      lastName: 'Audit',
      dob: '2014-02-02',
    });
    const { engagement } = await api.post('/api/tutors/engagement', {
      tutorId: ids.tutor,
      studentId: child.id,
      rate: 30,
      commissionPct: 25,
      partnerPct: 10,
      startDate: '2025-01-06',
      subjects: ['Maths'],
    });
    ids.engagement = engagement.id;
    ids.first = await saveLesson({ engagementId: ids.engagement, date: '2025-02-10', duration: 1 });
    await api.post('/api/tutors/engagement', {
      id: ids.engagement,
      tutorId: ids.tutor,
      rate: 45,
      commissionPct: 25,
      partnerPct: 10,
      startDate: '2025-02-15',
      subjects: ['Maths'],
      change: 'rates',
    });
    ids.second = await saveLesson({ engagementId: ids.engagement, date: '2025-02-20', duration: 1.5 });
    await saveLesson({ id: ids.first, engagementId: ids.engagement, date: '2025-02-10', duration: 2 });
    const { invoice } = await api.post('/api/invoices/save', { tutorId: ids.tutor, year: 2025, month: 2 });
    ids.invoice = invoice.id;
    auditor = await login('audra', 'auditor');
    partner = await login('parker', 'partner', ids.tutor);
    tutor = await login('tess', 'tutor', ids.tutor);
  });
  afterAll(() => product?.dispose());

  it("tells an engagement's history in words, with who, when and the correlation id", async () => {
    const { events } = await product.api(auditor).get(`/api/history/engagement-${ids.engagement}`);
    expect(events.map((event: { what: string }) => event.what)).toEqual([
      'Engagement started on 06 Jan 2025: Rate £30.00, Commission 25%, Partner share 10%; subjects Maths',
      'Rate changed from £30.00 to £45.00 from 15 Feb 2025',
    ]);
    const [started] = events;
    expect(started.who).toEqual({ userId: expect.any(String), name: 'Administrator', role: 'admin' });
    expect(started.when).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(started.correlationId).toEqual(expect.any(String));
    expect(started.revision).toBe(0);
  });

  it("tells a timesheet month's lessons as recorded and changed", async () => {
    const { events } = await product.api(auditor).get(`/api/history/timesheet-${ids.tutor}-2025-02`);
    expect(events.map((event: { what: string }) => event.what)).toEqual([
      'Lesson on 10 Feb 2025 recorded: 1.00 h at £30.00, £30.00',
      'Lesson on 20 Feb 2025 recorded: 1.50 h at £45.00, £67.50',
      'Lesson on 10 Feb 2025 changed: duration from 1.00 h to 2.00 h, amount from £30.00 to £60.00, commission from £7.50 to £15.00',
      'Month 2025-02 locked by its invoice',
    ]);
  });

  it('lets admins and auditors read any stream, partners the tutor-related ones, and tutors none', async () => {
    expect(await status(`/api/history/client-${ids.client}`, admin)).toBe(200);
    expect(await status(`/api/history/client-${ids.client}`, auditor)).toBe(200);
    expect(await status(`/api/history/client-${ids.client}`, partner)).toBe(403);
    expect(await status(`/api/history/engagement-${ids.engagement}`, partner)).toBe(200);
    expect(await status(`/api/history/tutor-${ids.tutor}`, partner)).toBe(200);
    expect(await status(`/api/history/engagement-${ids.engagement}`, tutor)).toBe(403);
    expect(await status(`/api/history/engagement-${randomUUID()}`, auditor)).toBe(404);
  });

  it('traces each invoice item to its lessons, their events and the period that priced each', async () => {
    const trace = await product.api(auditor).get(`/api/invoices/trace/${ids.invoice}`);
    expect(trace.differences).toEqual([]);
    expect(trace.matches).toBe(true);
    expect(trace.invoice).toMatchObject({ earnings: 127.5, commission: 31.88, lessonCount: 2 });
    expect(trace.itemsEarnings).toBe(127.5);
    const [item] = trace.items;
    expect(trace.items).toHaveLength(1);
    expect(item).toMatchObject({ commissionRate: 0.25, earnings: 127.5, lessonsEarnings: 127.5, matches: true });
    const [first, second] = item.lessons;
    expect(first).toMatchObject({ lessonId: ids.first, date: '2025-02-10', duration: 2, amount: 60, rate: 30 });
    expect(first.events.map((event: { type: string }) => event.type)).toEqual(['LessonRecorded', 'LessonChanged']);
    expect(first.events[1].who.name).toBe('Administrator');
    expect(first.period).toMatchObject({ startDate: '2025-01-06', endDate: '2025-02-14', rate: 30, partnerRate: 0.1 });
    expect(first.period.setBy.type).toBe('EngagementStarted');
    expect(second).toMatchObject({ lessonId: ids.second, amount: 67.5, rate: 45 });
    expect(second.period).toMatchObject({ startDate: '2025-02-15', rate: 45, commissionRate: 0.25 });
    expect(second.period.setBy.what).toBe('Rate changed from £30.00 to £45.00 from 15 Feb 2025');
    expect(await status(`/api/invoices/trace/${ids.invoice}`, tutor)).toBe(403);
    expect(await status(`/api/invoices/trace/${randomUUID()}`, auditor)).toBe(404);
  });
});
