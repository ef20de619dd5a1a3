import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { familyInvoice, workshop } from '@agency/domain';
import type { RecordedEvent } from '@agency/platform';
import { attachedPdf } from '@agency/scripts/testing/loopback-smtp';
import { pdfText } from '@agency/scripts/testing/pdf-text';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import pg from 'pg';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReactorRunner } from '../reactors/reactor-runner';
import { refuseErasedRecipients } from './erased-recipients';
import { mailReactor, messageIdOf } from './mail-reactor';
import { MAIL_REACTOR } from './mail-reactor-name';
import { createMailer } from './mailer';

type Delivered = { to: string[]; raw: string };

/** Undoes quoted-printable soft breaks and escapes, enough to read links and text. */
const decode = (raw: string) =>
  raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex) => String.fromCharCode(Number.parseInt(hex, 16)));

const PUBLIC_URL = 'https://agency.example.test';
const ADMIN = { id: 'mail-test-admin', username: 'admin', role: 'admin' as const };
const actor = { role: 'admin' as const, tutorId: null };
/** Waits for a condition; roomy, as a reactor's checkpoint moves past events it ignores only lazily. */
const eventually = <T>(condition: () => T | Promise<T>) => expect.poll(condition, { timeout: 60_000 });

describe('the mail reactor: every e-mail follows from an event, once (real PostgreSQL, real SMTP on loopback)', () => {
  let product: TestProduct;
  let db: pg.Pool;
  let admin: string;
  let smtp: SMTPServer | undefined;
  let smtpPort = 0;
  const inbox: Delivered[] = [];

  /**
   * A loopback SMTP server on `port` (any free one at first, then the same again after a stop):
   * it refuses for good (550) any recipient whose address starts with "gone".
   */
  async function openSmtp(port: number) {
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onRcptTo(address, _session, callback) {
        if (!address.address.startsWith('gone')) return callback();
        callback(Object.assign(new Error('No such mailbox here'), { responseCode: 550 }));
      },
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          inbox.push({
            to: session.envelope.rcptTo.map((r) => r.address),
            raw: decode(Buffer.concat(chunks).toString()),
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    smtp = server;
    smtpPort = (server.server.address() as AddressInfo).port;
  }
  const closeSmtp = async () => {
    const server = smtp;
    smtp = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  };

  beforeAll(async () => {
    await openSmtp(0);
    product = await startTestProduct({ smtpUrl: `smtp://127.0.0.1:${smtpPort}`, publicUrl: PUBLIC_URL });
    db = new pg.Pool({ connectionString: product.databaseUrl });
    admin = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
  });
  afterAll(async () => {
    await db?.end();
    await product?.dispose();
    await closeSmtp();
  });

  const store = () => product.command.deps.store;
  const post = (url: string, payload: object, token: string | null = admin) =>
    product.command.app.inject({
      method: 'POST',
      url,
      payload: { commandId: randomUUID(), ...payload },
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
  /** A command as the admin, straight to a decider: whichever code appends these events, they are mailed. */
  const act = () => product.command.actAs(ADMIN, randomUUID()).context;
  const mailsTo = (address: string) => inbox.filter((mail) => mail.to.includes(address));
  const withId = (messageId: string) => inbox.filter((mail) => mail.raw.includes(`Message-ID: ${messageId}`));
  /** The event of this type in the stream (the last one), as the reactor sees it. */
  const eventOf = async (streamId: string, type: string): Promise<RecordedEvent> => {
    const found = (await store().readStream(streamId)).filter((event) => event.type === type).at(-1);
    expect(found, `${type} in ${streamId}`).toBeDefined();
    return found as RecordedEvent;
  };
  /** Waits until the mail reactor has passed every event recorded so far. */
  const mailReactorCaughtUp = async () => {
    const head = await store().head();
    await eventually(async () => {
      const { rows } = await db.query(
        'select commit_position, prepare_position, failure from command.reactor_checkpoints where name = $1',
        [MAIL_REACTOR],
      );
      const row = rows[0];
      return (
        !!row &&
        row.failure === null &&
        (BigInt(row.commit_position) > head.commit ||
          (BigInt(row.commit_position) === head.commit && BigInt(row.prepare_position) >= head.prepare))
      );
    }).toBe(true);
  };
  const mailHealth = async () => {
    const response = await fetch(`${product.url}/api/health`, { headers: { authorization: `Bearer ${admin}` } });
    const body = (await response.json()) as { reactors: { name: string; failure: { error: string } | null }[] };
    return body.reactors.find((reactor) => reactor.name === MAIL_REACTOR);
  };

  async function scheduleWorkshop(over: Partial<{ capacity: number; description: string }> = {}) {
    const eventId = randomUUID();
    const event = {
      eventId,
      description: over.description ?? 'Robot building',
      dateTime: '2099-07-20T10:00',
      durationMinutes: 90,
      pricePence: 2500,
      capacity: over.capacity ?? 1,
      location: 'The Hall, Oxford',
    };
    await act().run(workshop.workshopStream(eventId), workshop.workshopDecider, {
      type: 'ScheduleEvent',
      event,
      actor,
    });
    return event;
  }
  async function book(eventId: string, email: string, firstName = 'Jo', children = ['Ann']) {
    const registrationId = randomUUID();
    await act().run(workshop.workshopStream(eventId), workshop.workshopDecider, {
      type: 'Register',
      registration: {
        registrationId,
        clientId: null,
        contact: {
          firstName,
          lastName: 'Lee',
          address: ['1 High Street'],
          postcode: 'OX1 1AA',
          email,
          phone: '07700 900000',
        },
        children: children.map((child) => ({
          firstName: child,
          lastName: 'Lee',
          school: 'St Mary',
          schoolYear: '5',
          allergies: '',
        })),
        comments: '',
      },
      nowLocal: '2026-01-01T09:00',
    });
    return registrationId;
  }

  it('mails a booking, a waiting-list letter, a place given and a cancellation, each once, as the event stood then', async () => {
    const event = await scheduleWorkshop();
    const stream = workshop.workshopStream(event.eventId);
    // The reactor is behind (stopped) while the event changes after the booking: the mail still
    // names the event as it was booked.
    await product.command.reactors.stop();
    await book(event.eventId, 'ada@example.com', 'Ada');
    await act().run(stream, workshop.workshopDecider, {
      type: 'ChangeEvent',
      event: { ...event, description: 'Robot building (renamed later)' },
      actor,
    });
    const booked = await eventOf(stream, 'WorkshopRegistrationMade');
    product.command.reactors.start();
    const bob = await book(event.eventId, 'bob@example.com', 'Bob');

    await eventually(() => mailsTo('bob@example.com').length).toBe(1);
    const confirmation = withId(messageIdOf(booked.id, 0));
    expect(confirmation).toHaveLength(1);
    expect(confirmation[0]!.to).toEqual(['ada@example.com']);
    expect(confirmation[0]!.raw).toContain('Subject: Booked: Robot building');
    expect(confirmation[0]!.raw).not.toContain('renamed later');
    expect(confirmation[0]!.raw).toContain('Dear Ada,');
    expect(confirmation[0]!.raw).toContain('Ann has a place at Robot building on 20 Jul 2099 10:00.');
    expect(confirmation[0]!.raw).toContain('Where: The Hall, Oxford.');
    expect(mailsTo('bob@example.com')[0]!.raw).toContain('Subject: Waiting list: Robot building (renamed later)');
    expect(mailsTo('bob@example.com')[0]!.raw).toContain('is full, so your booking is on the waiting list.');

    // A place comes free for Bob: Ada's booking is deleted (Ada is told), Bob is placed.
    const ada = booked.data.registrationId as string;
    await act().run(stream, workshop.workshopDecider, { type: 'DeleteRegistration', registrationId: ada, actor });
    const deleted = await eventOf(stream, 'WorkshopRegistrationDeleted');
    await eventually(() => withId(messageIdOf(deleted.id, 0)).length).toBe(1);
    expect(withId(messageIdOf(deleted.id, 0))[0]!.to).toEqual(['ada@example.com']);
    expect(withId(messageIdOf(deleted.id, 0))[0]!.raw).toContain('Subject: Booking cancelled: Robot building');
    expect(withId(messageIdOf(deleted.id, 0))[0]!.raw).toContain(
      'Your booking for Ann at Robot building (renamed later) on 20 Jul 2099 10:00 has been cancelled.',
    );
    expect(withId(messageIdOf(deleted.id, 0))[0]!.raw).not.toContain('credit note');
    await act().run(stream, workshop.workshopDecider, { type: 'Place', registrationId: bob, actor });
    const placed = await eventOf(stream, 'WorkshopRegistrationPlaced');
    await eventually(() => withId(messageIdOf(placed.id, 0)).length).toBe(1);
    expect(withId(messageIdOf(placed.id, 0))[0]!.raw).toContain(
      'Good news: a place came free, so your booking for Robot building (renamed later) on 20 Jul 2099 10:00 is confirmed.',
    );

    // Cancelled: everyone on the event then (Bob; Ada's booking had gone) and nobody else.
    await book(event.eventId, 'cy@example.com', 'Cy');
    await act().run(stream, workshop.workshopDecider, { type: 'CancelEvent', actor });
    const cancelled = await eventOf(stream, 'WorkshopEventCancelled');
    await eventually(() => withId(messageIdOf(cancelled.id, 1)).length).toBe(1);
    const cancellations = inbox.filter((mail) => mail.raw.includes('Subject: Cancelled: Robot building'));
    expect(cancellations.map((mail) => mail.to[0]).sort()).toEqual(['bob@example.com', 'cy@example.com']);
    expect(withId(messageIdOf(cancelled.id, 0))).toHaveLength(1);
    expect(cancellations[0]!.raw).toContain('has been cancelled.');

    await mailReactorCaughtUp();
    expect(mailsTo('ada@example.com')).toHaveLength(2);
    expect(mailsTo('bob@example.com')).toHaveLength(3);
    expect(mailsTo('cy@example.com')).toHaveLength(2);
  });

  it('says why a booking waits when places are left but too few, and tells the parent of a move and of a delete (once each)', async () => {
    const kites = await scheduleWorkshop({ capacity: 2, description: 'Kites' });
    const saturday = await scheduleWorkshop({ capacity: 3, description: 'Kites (Saturday)' });
    const stream = workshop.workshopStream(kites.eventId);
    const kim = await book(kites.eventId, 'kim@example.com', 'Kim', ['Ivy']);
    const lou = await book(kites.eventId, 'lou@example.com', 'Lou', ['Max', 'Noa']);
    const waiting = await eventOf(stream, 'WorkshopRegistrationMade');
    expect(waiting.data).toMatchObject({ registrationId: lou, status: 'waitlisted' });
    await eventually(() => withId(messageIdOf(waiting.id, 0)).length).toBe(1);
    const why = withId(messageIdOf(waiting.id, 0))[0]!.raw;
    expect(why).toContain(
      'Only 1 place was left at Kites on 20 Jul 2099 10:00, and a booking takes places for all its children or none, so your booking of 2 children is on the waiting list.',
    );
    expect(why).not.toContain('is full');

    // Moved to an event with room for both children: off the waiting list, and told where it went.
    const moved = await post('/api/events/move', {
      fromEventId: kites.eventId,
      registrationId: lou,
      toEventId: saturday.eventId,
    });
    expect(moved.statusCode, moved.body).toBe(200);
    const movedIn = await eventOf(workshop.workshopStream(saturday.eventId), 'WorkshopRegistrationMade');
    expect(movedIn.data).toMatchObject({ registrationId: lou, status: 'registered', movedFrom: kites.eventId });
    await eventually(() => withId(messageIdOf(movedIn.id, 0)).length).toBe(1);
    const move = withId(messageIdOf(movedIn.id, 0))[0]!;
    expect(move.to).toEqual(['lou@example.com']);
    expect(move.raw).toContain('Subject: Booking moved: Kites (Saturday)');
    expect(move.raw).toContain(
      'Your booking for Max, Noa has moved from Kites on 20 Jul 2099 10:00 to Kites (Saturday) on 20 Jul 2099 10:00.',
    );
    expect(move.raw).toContain('Max, Noa have places there.');

    // Kim's invoiced booking is deleted: Kim is told, and that its invoice is credited.
    const invoiced = await post('/api/events/confirmInvoice', { registrationIds: [kim], discountAmount: 0 });
    expect(invoiced.statusCode, invoiced.body).toBe(200);
    const deletedAnswer = await post('/api/events/delete', { eventId: kites.eventId, registrationId: kim });
    expect(deletedAnswer.statusCode, deletedAnswer.body).toBe(200);
    const deleted = await eventOf(stream, 'WorkshopRegistrationDeleted');
    await eventually(() => withId(messageIdOf(deleted.id, 0)).length).toBe(1);
    const cancelled = withId(messageIdOf(deleted.id, 0))[0]!;
    expect(cancelled.to).toEqual(['kim@example.com']);
    expect(cancelled.raw).toContain('Your booking for Ivy at Kites on 20 Jul 2099 10:00 has been cancelled.');
    expect(cancelled.raw).toContain(
      'The invoice that billed it is credited: you will receive a credit note by e-mail.',
    );

    await mailReactorCaughtUp();
    // Lou: the waiting list, the move. Kim: the booking, the invoice, the delete, the credit note.
    expect(mailsTo('lou@example.com')).toHaveLength(2);
    expect(mailsTo('kim@example.com').filter((mail) => mail.raw.includes('Subject: Booking cancelled'))).toHaveLength(
      1,
    );
  });

  it('mails a family invoice and its credit note with their PDFs, the invoice as it was issued', async () => {
    const invoiceId = randomUUID();
    const stream = familyInvoice.familyInvoiceStream(invoiceId);
    await product.command.reactors.stop();
    await act().run(stream, familyInvoice.familyInvoiceDecider, {
      type: 'IssueFamilyInvoice',
      invoice: {
        invoiceId,
        reference: 'FAM00042',
        date: '2026-03-02',
        dueDate: '2026-03-16',
        clientId: randomUUID(),
        billedFor: { kind: 'consultation', id: randomUUID() },
        billing: { name: 'Dee Park', address: ['3 Low Road'], postcode: 'OX3 3CC', email: 'dee@example.com' },
        lines: [{ description: 'Consultation', amountPence: 6000 }],
      },
    });
    // Paid before the reactor got to the invoice: the mailed PDF is the invoice as issued.
    await act().run(stream, familyInvoice.familyInvoiceDecider, {
      type: 'RecordFamilyPayment',
      paymentId: randomUUID(),
      date: '2026-03-03',
      amountPence: 1000,
      actor,
    });
    product.command.reactors.start();
    const issued = await eventOf(stream, 'FamilyInvoiceIssued');
    await eventually(() => withId(messageIdOf(issued.id, 0)).length).toBe(1);
    const invoiceMail = withId(messageIdOf(issued.id, 0))[0]!;
    expect(invoiceMail.to).toEqual(['dee@example.com']);
    expect(invoiceMail.raw).toMatch(/Subject: Invoice FAM00042 from /);
    expect(invoiceMail.raw).toContain('Please find attached our invoice FAM00042 for');
    const invoicePdf = pdfText(attachedPdf(invoiceMail.raw));
    expect(invoicePdf).toContain('FAM00042');
    expect(invoicePdf).not.toContain('Balance due');

    await act().run(stream, familyInvoice.familyInvoiceDecider, {
      type: 'IssueCreditNote',
      creditNoteId: randomUUID(),
      reference: 'CN-FAM00043',
      date: '2026-03-04',
      reason: 'cancelled',
    });
    const credited = await eventOf(stream, 'FamilyCreditNoteIssued');
    await eventually(() => withId(messageIdOf(credited.id, 0)).length).toBe(1);
    const creditMail = withId(messageIdOf(credited.id, 0))[0]!;
    expect(creditMail.raw).toMatch(/Subject: Credit note CN-FAM00043 from /);
    expect(pdfText(attachedPdf(creditMail.raw))).toContain('FAM00042');
    await mailReactorCaughtUp();
    expect(mailsTo('dee@example.com')).toHaveLength(2);
  });

  let activationCode = '';
  let resetToken = '';
  const linkIn = (mail: Delivered, path: string) => {
    const match = new RegExp(`${PUBLIC_URL}/${path}/([A-Za-z0-9_-]+)`).exec(mail.raw);
    expect(match, `a ${path} link in the mail`).not.toBeNull();
    return match![1]!;
  };

  it('mails a tutor activation link and a password reset link from events that name only the link, never its secret', async () => {
    const tutorAnswer = await post('/api/tutors/contact', {
      contact: {
        firstName: 'Fay',
        lastName: 'Gold',
        address: ['4 Elm Row'],
        postcode: 'OX4 4DD',
        email: 'fay.gold@example.com',
        phone: [{ type: 'Mobile', number: '07700 900004' }],
      },
      tutor: { username: 'fgold', invoicePrefix: 'FG' },
    });
    expect(tutorAnswer.statusCode, tutorAnswer.body).toBe(200);
    const tutorId = tutorAnswer.json().tutor.id as string;

    const asked = await post(`/api/tutors/activate/${tutorId}`, {});
    expect(asked.statusCode, asked.body).toBe(200);
    expect(asked.json().tutor).toMatchObject({ id: tutorId, activationSent: true });
    expect(asked.json().tutor.activationExpiresAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    const requested = await eventOf(`tutor-${tutorId}`, 'TutorActivationEmailSent');
    expect(requested.data.linkId).toEqual(expect.any(String));
    await eventually(() => withId(messageIdOf(requested.id, 0)).length).toBe(1);
    const activation = withId(messageIdOf(requested.id, 0))[0]!;
    expect(activation.to).toEqual(['fay.gold@example.com']);
    expect(activation.raw).toContain('Dear Fay,');
    expect(activation.raw).toContain('Your username is: fgold');
    activationCode = linkIn(activation, 'activate');
    // Sent: the code is no longer kept anywhere but as its hash.
    await eventually(
      async () => (await db.query('select 1 from auth.pending_links where id = $1', [requested.data.linkId])).rowCount,
    ).toBe(0);

    const activated = await product.command.app.inject({
      method: 'POST',
      url: '/auth/local/activate',
      payload: { activationCode, username: 'fgold', password: 'fay-password-1' },
    });
    expect(activated.statusCode, activated.body).toBe(200);
    const account = await db.query("select user_id from auth.accounts where lower(username) = 'fgold'");
    const userId = account.rows[0].user_id as string;

    const known = await post('/auth/local/reset', { username: 'FGold' }, null);
    expect(known.json()).toEqual({ success: true });
    await eventually(() => mailsTo('fay.gold@example.com').length).toBe(2);
    const resetEvent = await eventOf(`user-${userId}`, 'PasswordResetRequested');
    expect(Object.keys(resetEvent.data).sort()).toEqual(['expiresAt', 'linkId', 'userId']);
    const reset = withId(messageIdOf(resetEvent.id, 0));
    expect(reset).toHaveLength(1);
    expect(reset[0]!.raw).toContain('Someone asked to reset the password of the account "fgold"');
    resetToken = linkIn(reset[0]!, 'reset');
    const changed = await product.command.app.inject({
      method: 'POST',
      url: '/auth/local/password',
      payload: { resetToken, password: 'fay-new-password-1' },
    });
    expect(changed.statusCode, changed.body).toBe(200);

    // Neither secret is in any event, data or metadata.
    const everything = await db.query(`select string_agg(data::text || metadata::text, ' ') as text from es.events`);
    expect(everything.rows[0].text).not.toContain(activationCode);
    expect(everything.rows[0].text).not.toContain(resetToken);
    await mailReactorCaughtUp();
    expect((await db.query('select count(*)::int as n from auth.pending_links')).rows[0].n).toBe(0);
  });

  it('sends nothing twice when the reactor runs over the same events again, even on two runners at once', async () => {
    await mailReactorCaughtUp();
    const before = inbox.length;
    expect(before).toBeGreaterThanOrEqual(10);
    await product.command.reactors.stop();
    await db.query('update command.reactor_checkpoints set commit_position = 0, prepare_position = 0 where name = $1', [
      MAIL_REACTOR,
    ]);
    const second = new ReactorRunner(
      db,
      store(),
      product.command.deps,
      product.command.reactors.reactors.filter((reactor) => reactor.name === MAIL_REACTOR),
    );
    second.start();
    product.command.reactors.start();
    try {
      await mailReactorCaughtUp();
    } finally {
      await second.stop();
    }
    expect(inbox.length).toBe(before);
    const ids = inbox.map((mail) => /Message-ID: (<[^>]+>)/.exec(mail.raw)?.[1]);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('skips a recipient refused for good (SMTP 5xx, an erased address), logging no address, and goes on', async () => {
    const event = await scheduleWorkshop({ capacity: 10, description: 'Pottery' });
    const stream = workshop.workshopStream(event.eventId);
    await product.command.reactors.stop();
    await book(event.eventId, 'gone@example.com');
    await book(event.eventId, 'Erased');
    await book(event.eventId, 'eve@example.com');
    // The same reactor, with a log this test reads, over the events the runner has not reached.
    const lines: string[] = [];
    const log = (object: object, message: string) => lines.push(`${JSON.stringify(object)} ${message}`);
    const reactor = mailReactor({
      db,
      store: store(),
      mailer: refuseErasedRecipients(
        createMailer({
          smtpUrl: `smtp://127.0.0.1:${smtpPort}`,
          outboxDir: '/nonexistent',
          from: 'a@localhost',
          log: () => {},
        }),
      ),
      publicUrl: PUBLIC_URL,
      log: { warn: log } as never,
    });
    const made = (await store().readStream(stream)).filter((recorded) => recorded.type === 'WorkshopRegistrationMade');
    for (const recorded of made) await reactor.react(recorded, () => undefined as never);
    expect(mailsTo('eve@example.com')).toHaveLength(1);
    expect(lines).toHaveLength(2);
    expect(lines.join('\n')).not.toMatch(/gone@|Erased|example\.com/);
    expect(lines.join('\n')).toContain(made[0]!.id);
    const outcomes = await db.query('select outcome from command.mail_sent where event_id = any($1) order by outcome', [
      made.map((recorded) => recorded.id),
    ]);
    expect(outcomes.rows.map((row) => row.outcome)).toEqual(['refused', 'refused', 'sent']);
    // The runner then passes them without trying again or stopping.
    product.command.reactors.start();
    await mailReactorCaughtUp();
    expect(mailsTo('eve@example.com')).toHaveLength(1);
    expect((await mailHealth())?.failure).toBeNull();
  });

  it('never mails a subject erased after the log was read but before the mail went (a reactor behind the shared read of the log)', async () => {
    // The mail reactor is held at a booking's letter by a mail server that is down.
    const event = await scheduleWorkshop({ capacity: 5, description: 'Clay' });
    await closeSmtp();
    await book(event.eventId, 'hal@example.com', 'Hal');
    await eventually(async () => (await mailHealth())?.failure?.error ?? '').toMatch(/could not be sent/);
    // Meanwhile a tutor is sent an activation link: the log is read (addresses in clear) past it.
    const tutorAnswer = await post('/api/tutors/contact', {
      contact: {
        firstName: 'Tia',
        lastName: 'Stone',
        address: ['9 Elm Row'],
        postcode: 'OX4 4DD',
        email: 'tia.stone@example.com',
        phone: [{ type: 'Mobile', number: '07700 900009' }],
      },
      tutor: { username: 'tstone', invoicePrefix: 'TS', startDate: '2024-09-01' },
    });
    expect(tutorAnswer.statusCode, tutorAnswer.body).toBe(200);
    const tutorId = tutorAnswer.json().tutor.id as string;
    expect((await post(`/api/tutors/activate/${tutorId}`, {})).statusCode).toBe(200);
    const requested = await eventOf(`tutor-${tutorId}`, 'TutorActivationEmailSent');
    await eventually(async () => {
      const { rows } = await db.query(
        `select count(*)::int as behind from command.reactor_checkpoints
          where name <> $1 and (commit_position, prepare_position) < ($2::bigint, $3::bigint)`,
        [MAIL_REACTOR, requested.position.commit.toString(), requested.position.prepare.toString()],
      );
      return rows[0].behind;
    }).toBe(0);
    // The tutor leaves and is erased before the mail reactor reaches the link's event.
    expect((await post(`/api/tutors/active/${tutorId}`, { active: false, endDate: '2025-01-31' })).statusCode).toBe(
      200,
    );
    const erased = await post(`/api/tutors/erase/${tutorId}`, { reason: 'Asked by the tutor', confirm: true });
    expect(erased.statusCode, erased.body).toBe(200);
    await openSmtp(smtpPort);
    await eventually(() => mailsTo('hal@example.com').length).toBe(1);
    await mailReactorCaughtUp();
    expect(mailsTo('tia.stone@example.com')).toEqual([]);
    expect(inbox.map((mail) => mail.raw).join('\n')).not.toContain('tia.stone@');
  });

  it('reports a mail server that is down in health, and sends once it is back', async () => {
    const event = await scheduleWorkshop({ capacity: 5, description: 'Chess' });
    await closeSmtp();
    await book(event.eventId, 'gus@example.com', 'Gus');
    await eventually(async () => (await mailHealth())?.failure?.error ?? '').toMatch(/could not be sent \(ESOCKET/);
    expect((await mailHealth())?.failure?.error).not.toContain('gus@');
    expect(mailsTo('gus@example.com')).toHaveLength(0);
    await openSmtp(smtpPort);
    await eventually(() => mailsTo('gus@example.com').length).toBe(1);
    await mailReactorCaughtUp();
    expect((await mailHealth())?.failure).toBeNull();
    expect(mailsTo('gus@example.com')).toHaveLength(1);
  });
});
