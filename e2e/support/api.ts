import { randomUUID } from 'node:crypto';
import { expect, inject } from 'vitest';

/** Commands over HTTP as a signed-in user, for a browser test's set-up through the real routes. */
export function apiAs(token: string, baseUrl = inject('baseUrl')) {
  return {
    token,
    get: async (path: string) => {
      const response = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
      expect(response.status, await response.clone().text()).toBe(200);
      return response.json();
    },
    post: async (path: string, body: object) => {
      const response = await fetch(`${baseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ commandId: randomUUID(), ...body }),
      });
      expect(response.status, await response.clone().text()).toBe(200);
      return response.json();
    },
  };
}

/** The run's product's admin, or (with `baseUrl` and `admin`) a product of the test's own. */
export async function adminApi(baseUrl = inject('baseUrl'), admin = inject('admin')) {
  const login = await fetch(`${baseUrl}/auth/local`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(admin),
  });
  expect(login.status).toBe(200);
  return apiAs((await login.json()).token, baseUrl);
}

/** A complete contact body for a family or a tutor. */
export const contactFor = (firstName: string, lastName: string) => ({
  firstName,
  lastName,
  address: ['3 Turl Street', 'Oxford'],
  postcode: 'OX1 3DH',
  email: `${firstName}.${lastName}@example.com`.toLowerCase(),
  phone: [{ type: 'Mobile', number: '07700 900777' }],
});

/**
 * An engagement of the tutor with the child at £40 an hour in Maths, 25% commission and
 * `partnerPct` to a partner, from `startDate`: its id.
 */
export async function engagementOf(
  api: ReturnType<typeof apiAs>,
  given: { tutorId: string; studentId: string; startDate: string; partnerPct?: number },
): Promise<string> {
  const { engagement } = await api.post('/api/tutors/engagement', {
    tutorId: given.tutorId,
    studentId: given.studentId,
    rate: 40,
    commissionPct: 25,
    partnerPct: given.partnerPct ?? 0,
    startDate: given.startDate,
    subjects: ['Maths'],
  });
  return engagement.id;
}

/**
 * An engagement of the tutor with the child at £40 an hour (25% commission, 10% to a partner),
 * and one hour's lesson on the first day of `month` (YYYY-MM): its id.
 */
export async function engagementWithLesson(
  api: ReturnType<typeof apiAs>,
  { tutorId, studentId, month }: { tutorId: string; studentId: string; month: string },
): Promise<string> {
  const id = await engagementOf(api, { tutorId, studentId, startDate: '2020-01-01', partnerPct: 10 });
  await api.post(`/api/lessons/lesson?month=${month}`, {
    tutorId,
    lesson: { engagementId: id, date: `${month}-01`, duration: 1 },
  });
  return id;
}

/** A tutor, a family and the family's child, set up through the API: their ids. */
export async function tutorAndFamily(
  api: ReturnType<typeof apiAs>,
  given: {
    tutor: [first: string, last: string];
    username: string;
    invoicePrefix: string;
    tutorStart: string;
    family: [first: string, last: string];
    child: [first: string, last: string];
    dob: string;
  },
): Promise<{ tutorId: string; clientId: string; childId: string }> {
  const { tutor } = await api.post('/api/tutors/contact', {
    contact: contactFor(...given.tutor),
    tutor: { username: given.username, invoicePrefix: given.invoicePrefix, startDate: given.tutorStart },
  });
  const { client } = await api.post('/api/clients/contact', contactFor(...given.family));
  const { child } = await api.post(`/api/clients/child/${client.id}`, {
    firstName: given.child[0],
    lastName: given.child[1],
    dob: given.dob,
  });
  return { tutorId: tutor.id, clientId: client.id, childId: child.id };
}
