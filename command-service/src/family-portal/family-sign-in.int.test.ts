import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import { contact, testRequests } from '@agency/scripts/testing/test-requests';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Families sign in by a one-time e-mailed link (docs/family-access.md): the link works once and
 * for 15 minutes, only its hash is kept, the answer is the same for an address nobody has, and a
 * family's sessions end when an admin ends them, turns its access off, or erases the family.
 */
describe('family sign-in by e-mailed link (real PostgreSQL, outbox)', () => {
  let product: TestProduct;
  let admin = '';
  let db: pg.Pool;
  const { ok, get } = testRequests(
    () => product,
    () => admin,
  );
  const seen = new Set<string>();

  const ask = (email: string) =>
    product.command.app.inject({ method: 'POST', url: '/auth/family/link', payload: { email } });
  const spend = (token: string) =>
    product.command.app.inject({ method: 'POST', url: '/auth/family/session', payload: { token } });

  /** The newest sign-in link mailed to `to` that this test has not read yet. */
  const linkTo = async (to: string) => {
    const outbox = join(product.dataDir, 'outbox');
    let token = '';
    await expect
      .poll(
        () => {
          const files = (() => {
            try {
              return readdirSync(outbox).sort().reverse();
            } catch {
              return [];
            }
          })();
          for (const file of files) {
            if (seen.has(file)) continue;
            const text = readFileSync(join(outbox, file), 'utf8').replace(/=\r?\n/g, '');
            const match = /\/family\/sign-in\/([A-Za-z0-9_-]+)/.exec(text);
            if (text.includes(`To: ${to}`) && match) {
              seen.add(file);
              token = match[1] as string;
              return token;
            }
          }
          return '';
        },
        { timeout: 60_000 },
      )
      .not.toBe('');
    return token;
  };
  const signIn = async (email: string) => {
    expect((await ask(email)).statusCode).toBe(200);
    const response = await spend(await linkTo(email));
    expect(response.statusCode, response.body).toBe(200);
    return response.json().token as string;
  };
  const me = (token: string) =>
    product.command.app.inject({ url: '/auth/local/me', headers: { authorization: `Bearer ${token}` } });

  let family: { clientId: string; contactId: string; email: string };
  let other: { clientId: string; contactId: string; email: string };
  const newFamily = async (first: string, last: string) => {
    const made = await ok('/api/clients/contact', contact(first, last));
    return {
      clientId: made.client.id as string,
      contactId: made.contact.id as string,
      email: contact(first, last).email,
    };
  };

  beforeAll(async () => {
    product = await startTestProduct();
    admin = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
    db = new pg.Pool({ connectionString: product.databaseUrl, max: 2 });
    family = await newFamily('Pat', 'Linkfamily');
    other = await newFamily('Kim', 'Otherfamily');
  });
  afterAll(async () => {
    await db?.end();
    await product?.dispose();
  });

  it('answers the same for a known and an unknown address, and mails a link only to the known one', async () => {
    const known = await ask(family.email);
    const unknown = await ask('nobody.here@example.com');
    expect(known.statusCode).toBe(200);
    expect(unknown.statusCode).toBe(200);
    expect(known.body).toBe(unknown.body);
    const token = await linkTo(family.email);
    // Only the hash is kept, and no event holds the secret.
    const stored = await db.query('select token_hash from auth.family_sign_in_links where contact_id = $1', [
      family.contactId,
    ]);
    expect(stored.rows.length).toBeGreaterThan(0);
    expect(JSON.stringify(stored.rows)).not.toContain(token);
    const events = await db.query("select data::text as data from es.events where stream_id like 'family-access-%'");
    expect(events.rows.map((row) => row.data).join()).not.toContain(token);
  });

  it('signs in once per link: the second of two requests at once, and any later one, is told it was used', async () => {
    expect((await ask(family.email)).statusCode).toBe(200);
    const token = await linkTo(family.email);
    const [a, b] = await Promise.all([spend(token), spend(token)]);
    expect([a.statusCode, b.statusCode].sort()).toEqual([200, 410]);
    expect((await spend(token)).json().error.code).toBe('link_used');
    const session = (a.statusCode === 200 ? a : b).json();
    expect(session.user).toMatchObject({ role: 'family', clientId: family.clientId });
    const who = await me(session.token);
    expect(who.statusCode).toBe(200);
    expect(who.json().user).toMatchObject({ role: 'family', clientId: family.clientId, name: 'Pat Linkfamily' });
  });

  it('refuses a link past its 15 minutes, and one nobody made', async () => {
    expect((await ask(family.email)).statusCode).toBe(200);
    const token = await linkTo(family.email);
    await db.query(
      "update auth.family_sign_in_links set expires_at = now() - interval '1 second' where contact_id = $1 and used_at is null",
      [family.contactId],
    );
    const expired = await spend(token);
    expect(expired.statusCode).toBe(410);
    expect(expired.json().error.code).toBe('link_expired');
    expect((await spend('no-such-link')).statusCode).toBe(404);
  });

  it('limits links asked for an address, known or not, in its own bucket', async () => {
    const from = { remoteAddress: '10.9.9.9' };
    const askFrom = (email: string) =>
      product.command.app.inject({ method: 'POST', url: '/auth/family/link', payload: { email }, ...from });
    for (let n = 0; n < 10; n++) expect((await askFrom('someone.else@example.com')).statusCode).toBe(200);
    const over = await askFrom('someone.else@example.com');
    expect(over.statusCode).toBe(429);
    // A password reset from the same address is not held back by it.
    const reset = await product.command.app.inject({
      method: 'POST',
      url: '/auth/local/reset',
      payload: { username: 'someone.else@example.com' },
      ...from,
    });
    expect(reset.statusCode).toBe(200);
  });

  it('keeps a family out of every staff route', async () => {
    const token = await signIn(family.email);
    for (const url of [`/api/clients/${family.clientId}`, '/api/clients', '/api/users/me', '/api/agency']) {
      const response = await fetch(`${product.url}${url}`, { headers: { authorization: `Bearer ${token}` } });
      expect(response.status, url).toBe(403);
    }
  });

  it('ends a family session when an admin ends it, and lists it until then', async () => {
    const token = await signIn(other.email);
    const listed = await get(`/api/clients/${other.clientId}/family-access`);
    expect(listed.status).toBe(200);
    const row = listed.body.contacts.find((c: { id: string }) => c.id === other.contactId);
    expect(row).toMatchObject({ familyAccess: true, email: other.email });
    expect(row.sessions).toHaveLength(1);
    const ended = await ok(`/api/clients/family-sessions/end/${other.contactId}`, {});
    expect(ended.ended).toBe(1);
    expect((await me(token)).statusCode).toBe(401);
  });

  it('turned off, ends its sessions, and a link mailed before signs nobody in; turned on, it signs in again', async () => {
    const token = await signIn(other.email);
    expect((await ask(other.email)).statusCode).toBe(200);
    const early = await linkTo(other.email);
    await ok(`/api/clients/family-access/${other.contactId}`, { active: false });
    expect((await me(token)).statusCode).toBe(401);
    // Its links were spent with it.
    expect((await spend(early)).json().error.code).toBe('link_used');
    // One that slipped past that (made in the same moment) is refused by the contact's own stream.
    await db.query('update auth.family_sign_in_links set used_at = null where contact_id = $1', [other.contactId]);
    const refused = await spend(early);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.code).toBe('login_turned_off');
    const listed = await get(`/api/clients/${other.clientId}/family-access`);
    expect(listed.body.contacts[0]).toMatchObject({ familyAccess: false, sessions: [] });
    const types = await db.query('select event_type from es.events where stream_id = $1 order by global_position', [
      `family-access-${other.contactId}`,
    ]);
    expect(types.rows.map((r) => r.event_type)).toContain('FamilyAccessTurnedOff');
    await ok(`/api/clients/family-access/${other.contactId}`, { active: true });
    await signIn(other.email);
  });

  it('erasing the family ends its sessions and its links', async () => {
    const token = await signIn(family.email);
    expect((await ask(family.email)).statusCode).toBe(200);
    const early = await linkTo(family.email);
    await ok(`/api/clients/erase/${family.clientId}`, { reason: 'Asked to be forgotten', confirm: true });
    expect((await me(token)).statusCode).toBe(401);
    expect((await spend(early)).json().error.code).toBe('link_used');
    // The address is "Erased" now: asking for a link is answered as for anyone, and records nothing.
    expect((await ask(family.email)).statusCode).toBe(200);
  });
});
