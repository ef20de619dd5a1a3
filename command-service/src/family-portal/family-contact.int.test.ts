import { createHash, randomUUID } from 'node:crypto';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import { contact, testRequests } from '@agency/scripts/testing/test-requests';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * A family corrects its own contacts (docs/family-access.md): a phone and an address at once; a
 * new e-mail address only once an admin confirms it. Another family's contact is not found.
 */
describe("a family corrects its own contacts' details (real PostgreSQL)", () => {
  let product: TestProduct;
  let admin = '';
  let db: pg.Pool;
  const { post, ok, get } = testRequests(
    () => product,
    () => admin,
  );
  let family: { clientId: string; contactId: string; email: string };
  let other: { clientId: string; contactId: string };
  let session = '';

  const newFamily = async (first: string, last: string) => {
    const made = await ok('/api/clients/contact', contact(first, last));
    return {
      clientId: made.client.id as string,
      contactId: made.contact.id as string,
      email: contact(first, last).email,
    };
  };
  /** Signed in as the family with a link whose secret the test knows (the mailed one is never stored). */
  const signIn = async (of: { clientId: string; contactId: string }) => {
    const token = `known-${randomUUID()}`;
    await db.query(
      `insert into auth.family_sign_in_links (token_hash, contact_id, client_id, expires_at)
        values ($1, $2, $3, now() + interval '15 minutes')`,
      [createHash('sha256').update(token).digest('hex'), of.contactId, of.clientId],
    );
    const response = await product.command.app.inject({
      method: 'POST',
      url: '/auth/family/session',
      payload: { token },
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json().token as string;
  };
  const ownContact = async () => {
    const { status, body } = await get('/api/family/details', session);
    expect(status).toBe(200);
    return body.family.contacts.find((c: { id: string }) => c.id === family.contactId);
  };
  const correction = {
    address: ['2 New Road', 'Oxford'],
    postcode: 'OX2 2BB',
    phone: [{ type: 'Home', number: '01865 000002' }],
  };

  beforeAll(async () => {
    product = await startTestProduct();
    admin = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
    db = new pg.Pool({ connectionString: product.databaseUrl, max: 2 });
    family = await newFamily('Ada', 'Correcting');
    other = await newFamily('Bo', 'Elsewhere');
    session = await signIn(family);
  });
  afterAll(async () => {
    await db?.end();
    await product?.dispose();
  });

  it('changes its phone and address at once, keeping its name and e-mail', async () => {
    await ok(`/api/family/contact/${family.contactId}`, correction, session);
    expect(await ownContact()).toMatchObject({
      firstName: 'Ada',
      lastName: 'Correcting',
      email: family.email,
      ...correction,
    });
  });

  it("answers another family's contact 404, as an unknown one, and changes nothing", async () => {
    const before = (await get(`/api/contacts/${other.contactId}`)).body;
    for (const id of [other.contactId, randomUUID()]) {
      const response = await post(`/api/family/contact/${id}`, { ...correction, postcode: 'XX1 1XX' }, session);
      expect(response.statusCode, response.body).toBe(404);
      const asked = await post(`/api/family/email-change/${id}`, { email: 'taken.over@example.com' }, session);
      expect(asked.statusCode, asked.body).toBe(404);
    }
    expect((await get(`/api/contacts/${other.contactId}`)).body).toEqual(before);
  });

  it('refuses a partial or invalid body with a 400 naming the field, changing nothing', async () => {
    const before = await ownContact();
    const partial = await post(`/api/family/contact/${family.contactId}`, { phone: correction.phone }, session);
    expect(partial.statusCode).toBe(400);
    expect(partial.json().error.fields).toHaveProperty('postcode');
    const noPhone = await post(`/api/family/contact/${family.contactId}`, { ...correction, phone: [] }, session);
    expect(noPhone.statusCode).toBe(400);
    const badEmail = await post(`/api/family/email-change/${family.contactId}`, { email: 'not an address' }, session);
    expect(badEmail.statusCode).toBe(400);
    expect(badEmail.json().error.fields).toHaveProperty('email');
    expect(await ownContact()).toEqual(before);
  });

  it('keeps the old e-mail address until an admin confirms the new one', async () => {
    const moved = 'ada.moved@example.com';
    await ok(`/api/family/email-change/${family.contactId}`, { email: moved }, session);
    expect((await ownContact()).email).toBe(family.email);
    const access = (await get(`/api/clients/${family.clientId}/family-access`)).body;
    expect(access.contacts.find((c: { id: string }) => c.id === family.contactId).emailChange).toBe(moved);
    // The family cannot confirm its own change.
    expect(
      (await post(`/api/clients/email-change/decide/${family.contactId}`, { approve: true }, session)).statusCode,
    ).toBe(403);
    expect((await ownContact()).email).toBe(family.email);

    await ok(`/api/clients/email-change/decide/${family.contactId}`, { approve: true });
    expect((await ownContact()).email).toBe(moved);
    const after = (await get(`/api/clients/${family.clientId}/family-access`)).body;
    expect(after.contacts.find((c: { id: string }) => c.id === family.contactId).emailChange).toBeNull();
    // Decided once: a second decision is a conflict.
    expect((await post(`/api/clients/email-change/decide/${family.contactId}`, { approve: false })).statusCode).toBe(
      409,
    );
  });

  it('declined, the address stays as it was', async () => {
    const current = (await ownContact()).email;
    await ok(`/api/family/email-change/${family.contactId}`, { email: 'ada.declined@example.com' }, session);
    await ok(`/api/clients/email-change/decide/${family.contactId}`, { approve: false });
    expect((await ownContact()).email).toBe(current);
  });
});
