import { todayIn } from '@agency/domain';
import { pdfText } from '@agency/scripts/testing/pdf-text';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import { contact, testRequests } from '@agency/scripts/testing/test-requests';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** Every key matching /partner/i anywhere in an answer, with its path. */
function partnerKeys(value: unknown, path = '$'): string[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => partnerKeys(item, `${path}[${index}]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, field]) => [
    ...(/partner/i.test(key) ? [`${path}.${key}`] : []),
    ...partnerKeys(field, `${path}.${key}`),
  ]);
}

describe('least privilege: one rule for partner fields, and a tutor reads only current families', () => {
  let product: TestProduct;
  let admin: string;
  let tutor: { id: string; token: string };
  let partner: { id: string; token: string };
  /** Ada taught Amy Archer (ended), teaches Cal Carter (ongoing) and Dora Dunn (ends next year). */
  const family: Record<string, { clientId: string; contactId: string; children: Record<string, string> }> = {};
  const engagements: Record<string, string> = {};

  const { ok, get } = testRequests(
    () => product,
    () => admin,
  );
  const read = async (url: string, token = admin) => {
    const answer = await get(url, token);
    expect(answer.status, url).toBe(200);
    return answer.body;
  };

  async function newTutor(first: string, last: string, role: 'tutor' | 'partner') {
    const { tutor: made } = await ok('/api/tutors/contact', {
      contact: contact(first, last),
      tutor: {
        username: `${first}${last}`.toLowerCase(),
        invoicePrefix: `${first[0]}${last[0]}`,
        startDate: '2023-09-01',
      },
    });
    const username = `${first}.login`.toLowerCase();
    await ok('/api/users', { username, password: 'least-privilege-1', role, tutorId: made.id, name: first });
    return { id: made.id as string, token: await product.login(username, 'least-privilege-1') };
  }

  async function newFamily(surname: string, children: string[]) {
    const { client } = await ok('/api/clients/contact', contact('Parent', surname));
    const ids: Record<string, string> = {};
    for (const first of children) {
      const { child } = await ok(`/api/clients/child/${client.id}`, {
        firstName: first,
        lastName: surname,
        dob: '2012-05-01',
      });
      ids[first] = child.id;
    }
    const detail = await read(`/api/clients/${client.id}`);
    family[surname] = { clientId: client.id, contactId: detail.client.contacts[0].id, children: ids };
  }

  async function engage(name: string, studentId: string, endDate?: string) {
    const terms = { tutorId: tutor.id, rate: 30, commissionPct: 20, partnerPct: 10, startDate: '2024-01-08' };
    const { engagement } = await ok('/api/tutors/engagement', { ...terms, studentId });
    engagements[name] = engagement.id;
    if (endDate) await ok('/api/tutors/engagement', { ...terms, id: engagement.id, change: 'termination', endDate });
  }

  beforeAll(async () => {
    product = await startTestProduct();
    admin = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
    tutor = await newTutor('Ada', 'Lovelace', 'tutor');
    partner = await newTutor('Pat', 'Partner', 'partner');
    await newFamily('Archer', ['Amy']);
    await newFamily('Carter', ['Cal', 'Cora']);
    await newFamily('Dunn', ['Dora']);
    const nextYear = Number(todayIn('Europe/London', new Date()).slice(0, 4)) + 1;
    await engage('amy', family.Archer!.children.Amy!, '2024-03-31');
    await engage('cal', family.Carter!.children.Cal!);
    await engage('dora', family.Dunn!.children.Dora!, `${nextYear}-12-31`);
    for (const [name, date] of [
      ['amy', '2024-01-09'],
      ['cal', '2024-01-10'],
    ] as const) {
      await ok(
        '/api/lessons/lesson',
        { tutorId: tutor.id, lesson: { engagementId: engagements[name], date, duration: 1 } },
        tutor.token,
      );
    }
  });
  afterAll(async () => {
    await product?.dispose();
  });

  it('gives a tutor no partner field in the lessons, the timesheet or a lesson save; staff get the Partner Share', async () => {
    const url = `/api/lessons?year=2024&month=1&tutorId=${tutor.id}`;
    const mine = await read(url, tutor.token);
    expect(partnerKeys(mine)).toEqual([]);
    // A former student's past lessons still show the student's name.
    expect(mine.lessons.map((lesson: { student: string }) => lesson.student)).toEqual(['Amy Archer', 'Cal Carter']);

    const staff = await read(url);
    // The partner's 10% of the agency's 20% commission on £30.
    expect(staff.lessons[0].partnerCommission).toBe(0.6);
    expect(staff.totals.partnerCommission).toBe(1.2);
    expect((await read(url, partner.token)).totals.partnerCommission).toBe(1.2);

    const sheet = await read(
      `/api/lessons/timesheet?from=2024-01-08&to=2024-01-14&month=2024-01&tutorId=${tutor.id}`,
      tutor.token,
    );
    expect(partnerKeys(sheet)).toEqual([]);
    const saved = await ok(
      '/api/lessons/lesson?month=2024-01',
      { tutorId: tutor.id, lesson: { engagementId: engagements.cal, date: '2024-01-11', duration: 0.5 } },
      tutor.token,
    );
    expect(saved.lesson).toMatchObject({ date: '2024-01-11', duration: 0.5 });
    expect(partnerKeys(saved)).toEqual([]);
  });

  it('gives a tutor their engagement and its history without the partner rate or %; staff see them', async () => {
    for (const name of ['amy', 'cal']) {
      const url = `/api/tutors/engagement/${tutor.id}/${engagements[name]}`;
      const mine = await read(url, tutor.token);
      expect(mine.engagement).toMatchObject({ rate: 30, commissionRate: 0.2, commissionPct: 20 });
      expect(mine.engagement.history).toHaveLength(1);
      expect(partnerKeys(mine)).toEqual([]);
      const staff = await read(url);
      expect(staff.engagement).toMatchObject({ partnerRate: 0.1, partnerPct: 10 });
      expect(staff.engagement.history[0].partnerRate).toBe(0.1);

      const on = `${url}/on/2024-01-15`;
      expect(partnerKeys(await read(on, tutor.token))).toEqual([]);
      expect((await read(on)).period.partnerRate).toBe(0.1);
    }
  });

  it('gives a tutor no partner share in invoice answers (save, confirm, list, summary, PDF); staff get it', async () => {
    const generated = await ok('/api/invoices/save', { tutorId: tutor.id, year: 2024, month: 1 }, tutor.token);
    expect(generated.invoice).toMatchObject({ earnings: 75, confirmed: false });
    expect(partnerKeys(generated)).toEqual([]);
    const again = await ok('/api/invoices/save', { tutorId: tutor.id, year: 2024, month: 1 });
    expect(again.invoice.partnerCommission).toBe(1.5);

    const confirmed = await ok('/api/invoices/confirm', { id: generated.invoice.id }, tutor.token);
    expect(confirmed.invoice.confirmed).toBe(true);
    expect(partnerKeys(confirmed)).toEqual([]);
    expect((await ok('/api/invoices/confirm', { id: generated.invoice.id })).invoice.partnerCommission).toBe(1.5);

    const list = await read(`/api/invoices/?year=2024&month=1&tutorId=${tutor.id}`, tutor.token);
    expect(list.invoices).toHaveLength(1);
    expect(partnerKeys(list)).toEqual([]);
    const staffList = await read(`/api/invoices/?year=2024&month=1&tutorId=${tutor.id}`);
    expect(staffList.invoices[0].partnerCommission).toBe(1.5);
    expect(staffList.totals.partnerCommission).toBe(1.5);

    expect(partnerKeys(await read(`/api/invoices/summary?year=2024&month=1&tutorId=${tutor.id}`, tutor.token))).toEqual(
      [],
    );
    const pdf = await fetch(`${product.url}/api/invoices/doc/${generated.invoice.id}`, {
      headers: { authorization: `Bearer ${tutor.token}` },
    });
    expect(pdf.status).toBe(200);
    const text = pdfText(new Uint8Array(await pdf.arrayBuffer()));
    expect(text).toContain('75.00');
    expect(text).not.toMatch(/partner/i);
  });

  it('lets a tutor read only the families of current students: a former family answers 404', async () => {
    const { Archer, Carter, Dunn } = family;
    const names = (body: { clients: { name: string }[] }) => body.clients.map((client) => client.name);
    const current = ['Parent Carter', 'Parent Dunn'];
    expect(names(await read('/api/clients?includeInactive=N', tutor.token))).toEqual(current);
    expect(names(await read('/api/clients?includeInactive=Y', tutor.token))).toEqual(current);

    for (const url of [
      `/api/clients/${Archer!.clientId}`,
      `/api/clients/${Archer!.clientId}/children`,
      `/api/contacts/${Archer!.contactId}`,
    ]) {
      expect((await get(url, tutor.token)).status, url).toBe(404);
      expect((await get(url)).status, url).toBe(200);
    }
    // Cal goes on; Dora's engagement has an end date, but next year: today she is a current student.
    for (const { clientId, contactId } of [Carter!, Dunn!]) {
      const { client } = await read(`/api/clients/${clientId}`, tutor.token);
      expect(client.contacts[0].id).toBe(contactId);
      await read(`/api/clients/${clientId}/children`, tutor.token);
      await read(`/api/contacts/${contactId}`, tutor.token);
    }
    // The former family is closed, yet the past lessons still name its student.
    const lessons = await read(`/api/lessons?year=2024&month=1&tutorId=${tutor.id}`, tutor.token);
    expect(lessons.lessons.map((lesson: { student: string }) => lesson.student)).toContain('Amy Archer');

    // Staff filtering by the tutor: current families, and former ones too with includeInactive.
    expect(names(await read(`/api/clients?includeInactive=N&tutor=${tutor.id}`))).toEqual(current);
    expect(names(await read(`/api/clients?includeInactive=Y&tutor=${tutor.id}`))).toEqual([
      'Parent Archer',
      ...current,
    ]);
  });
});
