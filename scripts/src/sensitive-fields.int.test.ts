import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestProduct, TEST_ADMIN, type TestProduct } from './testing/test-product';

const CHILD_DOB = '2013-07-19';
const CONTACT_DOB = '1981-03-27';

/** Every key anywhere in a JSON answer, at any depth. */
function keysOf(value: unknown, into: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) keysOf(item, into);
  else if (value && typeof value === 'object') {
    for (const [key, field] of Object.entries(value)) {
      into.push(key);
      keysOf(field, into);
    }
  }
  return into;
}

/**
 * Dates of birth are the office's admins' (and auditors') only. Every answer a
 * tutor (teaching the child) or a partner gets about a family holds no `dob` key and no date of
 * birth anywhere; an admin's holds them; an erased child's date of birth (null) is answered.
 */
describe('dates of birth: admins only', () => {
  let product: TestProduct;
  const tokens: Record<'admin' | 'tutor' | 'partner', string> = { admin: '', tutor: '', partner: '' };
  let clientId = '';
  let contactId = '';
  let erasedId = '';

  const send = (url: string, token: string, payload?: object) =>
    fetch(`${product.url}${url}`, {
      method: payload ? 'POST' : 'GET',
      headers: { authorization: `Bearer ${token}`, ...(payload ? { 'content-type': 'application/json' } : {}) },
      ...(payload ? { body: JSON.stringify({ commandId: randomUUID(), ...payload }) } : {}),
    });
  const ok = async (url: string, payload: object) => {
    const response = await send(url, tokens.admin, payload);
    const text = await response.text();
    expect(response.status, `${url}: ${text}`).toBe(200);
    return JSON.parse(text);
  };
  const contact = (firstName: string, lastName: string) => ({
    firstName,
    lastName,
    address: ['1 Birth Road'],
    postcode: 'OX1 1AA',
    email: `${firstName}.${lastName}@example.com`.toLowerCase(),
    phone: [{ type: 'Mobile', number: '07700 900001' }],
  });
  const login = async (first: string, role: 'tutor' | 'partner') => {
    const { tutor } = await ok('/api/tutors/contact', {
      contact: contact(first, 'Dob'),
      tutor: {
        username: `${first}dob`.toLowerCase(),
        invoicePrefix: first.slice(0, 2).toUpperCase(),
        startDate: '2024-09-01',
      },
    });
    const password = `${first}-Dob-pass-42`;
    await ok('/api/users', { username: `${first}.dob`.toLowerCase(), password, role, tutorId: tutor.id, name: first });
    return { id: tutor.id as string, token: await product.login(`${first}.dob`.toLowerCase(), password) };
  };

  beforeAll(async () => {
    product = await startTestProduct();
    tokens.admin = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
    const tutor = await login('Ada', 'tutor');
    tokens.tutor = tutor.token;
    tokens.partner = (await login('Cy', 'partner')).token;
    const family = await ok('/api/clients/contact', { ...contact('Parent', 'Dob'), dob: CONTACT_DOB });
    clientId = family.client.id;
    contactId = family.contact.id;
    const { child } = await ok(`/api/clients/child/${clientId}`, { firstName: 'Kid', lastName: 'Dob', dob: CHILD_DOB });
    await ok('/api/tutors/engagement', {
      tutorId: tutor.id,
      studentId: child.id,
      rate: 30,
      commissionPct: 25,
      partnerPct: 10,
      startDate: '2025-01-06',
      subjects: ['Maths'],
    });
    // A family whose personal data was erased: its child's date of birth reads as null.
    const erased = await ok('/api/clients/contact', contact('Gone', 'Dob'));
    erasedId = erased.client.id;
    await ok(`/api/clients/child/${erasedId}`, { firstName: 'Gone', lastName: 'Child', dob: '2012-01-01' });
    await ok(`/api/clients/erase/${erasedId}`, { reason: 'Asked by the family', confirm: true });
  });
  afterAll(() => product?.dispose());

  const answers = async (token: string) => {
    const urls = [
      '/api/clients',
      `/api/clients/${clientId}`,
      `/api/clients/${clientId}/children`,
      `/api/contacts/${contactId}`,
      '/api/clients/all/children',
      '/api/dashboard',
    ];
    const found: { url: string; status: number; body: unknown }[] = [];
    for (const url of urls) {
      const response = await send(url, token);
      found.push({ url, status: response.status, body: response.status === 200 ? await response.json() : null });
    }
    return found;
  };

  it('answers a tutor and a partner no date of birth anywhere', async () => {
    for (const role of ['tutor', 'partner'] as const) {
      const seen = await answers(tokens[role]);
      // The tutor teaches the child: the family and the child are answered, without their dates of birth.
      expect(seen.find((a) => a.url === `/api/clients/${clientId}`)?.status, role).toBe(200);
      for (const { url, body } of seen) {
        expect(keysOf(body), `${role} ${url}`).not.toContain('dob');
        expect(JSON.stringify(body), `${role} ${url}`).not.toContain(CHILD_DOB);
        expect(JSON.stringify(body), `${role} ${url}`).not.toContain(CONTACT_DOB);
      }
    }
  });

  it('answers an admin the dates of birth, and null for an erased child', async () => {
    const seen = await answers(tokens.admin);
    for (const { url, status } of seen) expect(status, url).toBe(200);
    const text = JSON.stringify(seen.map((a) => a.body));
    expect(text).toContain(CHILD_DOB);
    expect(text).toContain(CONTACT_DOB);
    const erased = await send(`/api/clients/${erasedId}`, tokens.admin);
    expect(erased.status, await erased.clone().text()).toBe(200);
    const { client } = (await erased.json()) as { client: { children: { dob?: string | null }[] } };
    expect(client.children[0]?.dob).toBeNull();
    const children = await send(`/api/clients/${erasedId}/children`, tokens.admin);
    expect(children.status).toBe(200);
  });
});
