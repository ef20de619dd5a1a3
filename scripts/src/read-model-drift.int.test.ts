import { randomUUID } from 'node:crypto';
import { user } from '@agency/domain';
import { PostgresEventStore } from '@agency/platform';
import { projections } from '@agency/projection-service';
import { compareWithRebuild } from '@agency/projection-service/read-models/read-schema';
import { workshopsProjection } from '@agency/projection-service/read-models/workshops/projection';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openPersonalData } from './personal-data';
import { reactorsSettled } from './testing/reactors-settled';
import { type TestProduct, useTestProduct } from './testing/test-product';
import { contact, testRequests } from './testing/test-requests';

/**
 * Read-model rows that once came out different from a rebuild of the same events: a live batch
 * that rolled back moved a sequence on, and an erasure found a tutor's logins by where they are
 * linked now rather than by whose personal data they are.
 */
describe('live read models equal a rebuild where they used to drift', () => {
  let product: TestProduct;
  let db: pg.Pool;
  let admin: string;
  const { ok } = testRequests(
    () => product,
    () => admin,
  );

  const compare = async () => {
    const personalData = await openPersonalData(product.dataDir, product.databaseUrl);
    const store = personalData.protect(await PostgresEventStore.connect(product.databaseUrl));
    try {
      return await compareWithRebuild(db, store, projections);
    } finally {
      await store.close();
      await personalData.close();
    }
  };

  useTestProduct((started) => {
    ({ product, db, admin } = started);
  });

  it('a registration keeps its place in the order after a live batch that rolled back', async () => {
    const { event } = await ok('/api/events', {
      description: 'Drift day',
      dateTime: '2099-07-21T10:00',
      durationMinutes: 60,
      price: 10,
      capacity: 10,
      location: 'Hall',
    });
    const book = async (firstName: string) => {
      const booked = await ok('/api/events/register', {
        eventId: event.id,
        contact: { ...contact(firstName, 'Drift'), phone: '07700 900003' },
        children: [{ firstName: 'Kid', lastName: 'Drift', school: '', schoolYear: '', allergies: '' }],
        comments: '',
      });
      return booked.registration.id as string;
    };
    const first = await book('Ada');
    // A batch that applied a registration and then rolled back (a retry, a crash before its commit).
    const sql = await db.connect();
    try {
      await sql.query('begin');
      await sql.query('set local search_path to read');
      await workshopsProjection.handlers.WorkshopRegistrationMade?.(sql, {
        id: randomUUID(),
        streamId: `workshop-event-${event.id}`,
        revision: 99,
        position: { commit: 0n, prepare: 0n },
        type: 'WorkshopRegistrationMade',
        metadata: {} as never,
        data: {
          eventId: event.id,
          registrationId: randomUUID(),
          clientId: null,
          contact: { ...contact('Rolled', 'Back'), phone: '07700 900004' },
          children: [],
          places: 1,
          comments: '',
          status: 'registered',
          movedFrom: null,
        },
      } as never);
      await sql.query('rollback');
    } finally {
      sql.release();
    }
    const second = await book('Bea');
    const order = await db.query('select id, seq from read.workshop_registrations where event_id = $1 order by seq', [
      event.id,
    ]);
    expect(order.rows.map((row) => row.id)).toEqual([first, second]);
    expect(Number(order.rows[1].seq)).toBe(Number(order.rows[0].seq) + 1);
    expect((await compare()).differences).toEqual([]);
  });

  it('a login linked to another tutor since is erased with the tutor it was registered for, as a rebuild erases it', async () => {
    const { tutor: first } = await ok('/api/tutors/contact', {
      contact: contact('Una', 'Drift'),
      tutor: { username: 'una.drift', invoicePrefix: 'UD', startDate: '2024-01-01' },
    });
    const { tutor: second } = await ok('/api/tutors/contact', {
      contact: contact('Vic', 'Drift'),
      tutor: { username: 'vic.drift', invoicePrefix: 'VD', startDate: '2024-01-01' },
    });
    const system = { id: 'system', username: 'system', role: 'admin' as const };
    const { context } = product.command.actAs(system, randomUUID());
    const { userId } = await product.command.accounts.register(context, {
      // The tutor's own login, as an activation makes it.
      username: 'una.drift',
      password: 'a-long-password-1',
      role: 'tutor',
      tutorId: first.id,
      name: 'Una Drift',
    });
    const relink = product.command.actAs(system, randomUUID());
    await relink.context.run(user.userStream(userId), user.userDecider, {
      type: 'ChangeUserRole',
      role: 'tutor',
      tutorId: second.id,
    });
    const linked = relink.appendedUpTo();
    if (linked) await product.command.deps.projections.waitFor(linked, 5000);

    await ok(`/api/tutors/active/${first.id}`, { active: false });
    await ok(`/api/tutors/erase/${first.id}`, { reason: 'Asked by the tutor', confirm: true });
    await reactorsSettled(db);
    const row = await db.query('select username, name, tutor_id from read.users where id = $1', [userId]);
    expect(row.rows).toEqual([{ username: `erased-${first.id}`, name: 'Erased', tutor_id: second.id }]);
    expect((await compare()).differences).toEqual([]);
  });

  it('a tutor whose login has a name of its own is erased (the name stays taken, as a hash)', async () => {
    const { tutor } = await ok('/api/tutors/contact', {
      contact: contact('Wes', 'Own'),
      tutor: { username: 'wes.own', invoicePrefix: 'WO', startDate: '2024-01-01' },
    });
    const system = { id: 'system', username: 'system', role: 'admin' as const };
    const { context, appendedUpTo } = product.command.actAs(system, randomUUID());
    await product.command.accounts.register(context, {
      username: 'wes.login',
      password: 'a-long-password-1',
      role: 'tutor',
      tutorId: tutor.id,
      name: 'Wes Own',
    });
    const registered = appendedUpTo();
    if (registered) await product.command.deps.projections.waitFor(registered, 5000);
    await ok(`/api/tutors/active/${tutor.id}`, { active: false });
    await ok(`/api/tutors/erase/${tutor.id}`, { reason: 'Asked by the tutor', confirm: true });
    const names = await db.query("select count(*) from command.usernames where name in ('wes.own', 'wes.login')");
    expect(Number(names.rows[0].count)).toBe(0);
    expect((await compare()).differences).toEqual([]);
  });
});
