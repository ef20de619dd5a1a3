import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { useProductWithFaults } from '@agency/scripts/testing/product-with-faults';
import type { TestProduct } from '@agency/scripts/testing/test-product';
import { contact } from '@agency/scripts/testing/test-requests';
import type pg from 'pg';
import { describe, expect, it, vi } from 'vitest';
import { type FaultStep, injectFaults } from '../race-points';
import { activationCommandId } from './activation-routes';

const PASSWORD = 'Quartz-Heron-7731';

/**
 * An activation's decisive write is the tutor's stream; the login's own stream follows from it by
 * the tutor-logins reactor, whatever happens to the request that wrote it: a crash after its
 * append, a crash inside the reaction, a retry with the same code, no retry at all.
 */
describe('a tutor login follows from the activation (real PostgreSQL)', () => {
  let product: TestProduct;
  let db: pg.Pool;
  let admin: string;
  let tutors = 0;

  /** A registered tutor and an activation code for them (as the send route stores it: only its hash). */
  const tutorWithCode = async () => {
    const n = ++tutors;
    const username = `amyflow${n}`;
    const response = await product.command.app.inject({
      method: 'POST',
      url: '/api/tutors/contact',
      payload: {
        commandId: randomUUID(),
        contact: contact('Amy', `Flow${n}`),
        tutor: { username, invoicePrefix: `AF${n}`, startDate: '2024-01-01' },
      },
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(response.statusCode, response.body).toBe(200);
    const code = randomBytes(32).toString('base64url');
    const tutorId = response.json().tutor.id as string;
    await db.query(
      `insert into auth.activation_codes (code_hash, tutor_id, expires_at) values ($1, $2, now() + interval '1 day')`,
      [createHash('sha256').update(code).digest('hex'), tutorId],
    );
    return { tutorId, username, name: `Amy Flow${n}`, code };
  };
  const activate = (code: string, username: string, password = PASSWORD) =>
    product.command.app.inject({
      method: 'POST',
      url: '/auth/local/activate',
      payload: { activationCode: code, username, password },
    });
  /** The tutor's activation and login events, from the event store itself. */
  const eventsOf = async (tutorId: string) =>
    (
      await db.query(
        `select event_type from es.events
          where event_type in ('TutorAccountActivated', 'UserRegistered') and (stream_id = $1 or data->>'tutorId' = $2)
          order by transaction_id, global_position`,
        [`tutor-${tutorId}`, tutorId],
      )
    ).rows.map((row) => row.event_type as string);
  const me = (token: string) =>
    product.command.app.inject({ method: 'GET', url: '/auth/local/me', headers: { authorization: `Bearer ${token}` } });

  useProductWithFaults((started) => {
    ({ product, db, admin } = started);
  });

  it('an activation that died after the tutor’s stream had it gets its login without a retry; its retry signs in', async () => {
    const { tutorId, username, name, code } = await tutorWithCode();
    const commandId = activationCommandId(code);
    injectFaults({
      at: (fault: FaultStep) => {
        if (fault.step === 'appended' && fault.commandId === commandId && fault.streamId.startsWith('tutor-')) {
          throw new Error('the process died here');
        }
      },
    });
    expect((await activate(code, username)).statusCode).toBe(500);
    injectFaults(undefined);
    // Nobody retried: the reactor records the login all the same, and its credentials stay.
    await vi.waitFor(async () => expect(await eventsOf(tutorId)).toEqual(['TutorAccountActivated', 'UserRegistered']), {
      timeout: 60_000,
    });
    const kept = await db.query('select user_id from auth.accounts where lower(username) = $1', [username]);
    expect(kept.rows).toHaveLength(1);

    // A retry with another password is refused; with the one chosen, it is answered as a clean run.
    expect((await activate(code, username, 'Other-Quartz-9120')).statusCode).toBe(410);
    const retried = await activate(code, username);
    expect(retried.statusCode, retried.body).toBe(200);
    expect(retried.json().user).toEqual({ id: kept.rows[0].user_id, username, role: 'tutor', tutorId, name });
    expect((await me(retried.json().token)).json().user).toMatchObject({ id: kept.rows[0].user_id, name });
    // Once signed in, the link is used.
    const again = await activate(code, username);
    expect(again.statusCode).toBe(410);
    expect(again.json().error.code).toBe('code_used');
    // The password set at activation signs the tutor in (login throws on any answer but 200).
    expect((await me(await product.login(username, PASSWORD))).json().user).toMatchObject({ username, tutorId });
    expect(await eventsOf(tutorId)).toEqual(['TutorAccountActivated', 'UserRegistered']);
  });

  it('a crash inside the login step is retried by the reactor and ends in one login', async () => {
    const { tutorId, username, name, code } = await tutorWithCode();
    let crashes = 0;
    injectFaults({
      at: (fault: FaultStep) => {
        if (fault.step === 'appended' && fault.streamId.startsWith('user-') && crashes++ === 0) {
          throw new Error('the reactor died here');
        }
      },
    });
    const activated = await activate(code, username);
    expect(activated.statusCode, activated.body).toBe(200);
    expect(activated.json().user).toMatchObject({ username, role: 'tutor', tutorId, name });
    await vi.waitFor(async () => expect(await eventsOf(tutorId)).toEqual(['TutorAccountActivated', 'UserRegistered']), {
      timeout: 60_000,
    });
    expect(crashes).toBe(1);
    // The session works as soon as the login's stream is read (at once, unless the reactor was still retrying).
    await vi.waitFor(async () => expect((await me(activated.json().token)).statusCode).toBe(200), { timeout: 60_000 });
    expect((await activate(code, username)).statusCode).toBe(410);
  });

  it('a clean activation answers with its login recorded and shown, and the link is used', async () => {
    const { tutorId, username, name, code } = await tutorWithCode();
    // Its page fills in the username the link was sent for; any other code is answered alike.
    const lookup = async (asked: string) => {
      const response = await product.command.app.inject({
        method: 'GET',
        url: `/auth/local/activation?code=${encodeURIComponent(asked)}`,
      });
      expect(response.statusCode).toBe(200);
      return response.json();
    };
    expect(await lookup(code)).toEqual({ username });
    expect(await lookup(`${code}x`)).toEqual({ username: null });
    const activated = await activate(code, username);
    expect(activated.statusCode, activated.body).toBe(200);
    // Answered once the login's stream followed and the read side shows it.
    expect(await eventsOf(tutorId)).toEqual(['TutorAccountActivated', 'UserRegistered']);
    expect((await me(activated.json().token)).json().user).toMatchObject({ username, name, tutorId });
    const login = await db.query(
      `select metadata->>'causationId' as cause from es.events where event_type = 'UserRegistered' and data->>'tutorId' = $1`,
      [tutorId],
    );
    const activation = await db.query(
      `select event_id::text as id from es.events where event_type = 'TutorAccountActivated' and stream_id = $1`,
      [`tutor-${tutorId}`],
    );
    expect(login.rows[0].cause).toBe(activation.rows[0].id);
    expect((await activate(code, username)).statusCode).toBe(410);
    // A used link names nobody.
    expect(await lookup(code)).toEqual({ username: null });
  });
});
