import {
  ERASED,
  erasureBody,
  familyBillingSubject,
  familySubject,
  personalDataRules,
  registrationSubject,
  tutorSubject,
} from '@agency/contracts';
import { client, tutor, user, workshop } from '@agency/domain';
import { HttpError, type RecordedEvent } from '@agency/platform';
import type { PersonalDataVault } from '@agency/platform/personal-data';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { forgetOutboxMail } from '../mail/erased-recipients';
import { type CommandDependencies, commandRoute } from '../pipeline/command-pipeline';
import { readModelLookups } from '../read-model/lookups';

type Data = Record<string, unknown>;

/** The strings of a personal field's value (a phone's kind, "Mobile", is not personal). */
function stringsOf(value: unknown, into: Set<string>) {
  if (typeof value === 'string') {
    if (value.length >= 3 && value !== ERASED) into.add(value);
  } else if (Array.isArray(value)) {
    for (const item of value) stringsOf(item, into);
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) if (key !== 'type') stringsOf(item, into);
  }
}

/**
 * What a stored answer naming the subject may hold: the subject's ids (client, contacts,
 * children, tutor, logins) and the values of its personal fields, read before its key is destroyed.
 */
function traceOf(events: RecordedEvent[]): string[] {
  const found = new Set<string>();
  for (const { type, data } of events) {
    for (const id of [data.clientId, data.tutorId, data.userId, (data.contact as Data)?.id, (data.child as Data)?.id]) {
      if (typeof id === 'string') found.add(id);
    }
    for (const field of personalDataRules[type]?.fields ?? []) {
      let value: unknown = data;
      for (const step of field.path) value = (value as Data | undefined)?.[step];
      stringsOf(value, found);
    }
  }
  return [...found];
}

/** A booking's children as their names alone. */
const namesOf = (data: Data) =>
  Array.isArray(data.children) ? data.children.map(({ firstName, lastName }: Data) => ({ firstName, lastName })) : [];

/** The e-mail addresses in a subject's events, read before its key is destroyed. */
function addressesOf(events: RecordedEvent[]): string[] {
  const found = new Set<string>();
  for (const event of events) {
    const data = event.data;
    const contact = data.contact as { email?: unknown } | undefined;
    for (const value of [contact?.email, data.sentTo]) if (typeof value === 'string') found.add(value);
  }
  return [...found];
}

/**
 * Erasure of a family or of a tutor who has left (ARCHITECTURE, "Personal data"): the decider
 * records who (metadata), when and why; the subject's key is destroyed, so its personal fields
 * read as "Erased" everywhere, the read models included (their projections handle the event);
 * what the command side keeps outside events is cleared: stored command answers naming the
 * subject, the outbox's mail to it, and for a tutor the login, its sessions and its username.
 * Money history (lessons, invoices, totals, references) is untouched.
 */
export async function erasureRoutes(
  app: FastifyInstance,
  {
    deps,
    db,
    vault,
    outboxDir,
  }: { deps: CommandDependencies; db: pg.Pool; vault: PersonalDataVault; outboxDir: string },
) {
  const lookups = readModelLookups(db);

  /**
   * Stored answers of earlier commands that hold any of the subject's ids or personal values are
   * replaced by a note: a retry of such a command gets the note, never the personal data.
   */
  async function scrubStoredAnswers(events: RecordedEvent[]) {
    const needles = traceOf(events);
    if (needles.length === 0) return;
    await db.query(
      `update command.processed_commands set response = jsonb_build_object('erased', true)
        where response is not null and exists (select 1 from unnest($1::text[]) v where strpos(response::text, v) > 0)`,
      [needles],
    );
  }

  commandRoute<typeof erasureBody, { id: string }>(app, deps, {
    url: '/api/clients/erase/:id',
    roles: ['admin'],
    body: erasureBody,
    handle: async ({ body, params }, { run, now }) => {
      const clientId = params.id;
      const streamId = client.clientStream(clientId);
      const events = await deps.store.readStream(streamId);
      if (events.length === 0) throw new HttpError(404, 'not_found', 'There is no such client.');
      const ongoing = await lookups.ongoingEngagementsOfFamily(clientId);
      if (ongoing > 0) {
        throw new HttpError(
          409,
          'conflict',
          `This family still has ${ongoing} ongoing engagement${ongoing === 1 ? '' : 's'}. End them before erasing the family.`,
        );
      }
      await run(streamId, client.clientDecider, {
        type: 'EraseClient',
        reason: body.reason,
        erasedAt: now.toISOString(),
      });
      // After the event: a retry (same command id) finds it recorded and still completes these steps.
      await vault.shred(familySubject(clientId), now);
      await scrubStoredAnswers(events);
      forgetOutboxMail(outboxDir, addressesOf(events));
      return { client: { id: clientId, erased: true }, kept: await keptFor(vault, clientId) };
    },
  });

  commandRoute<typeof erasureBody, { id: string }>(app, deps, {
    url: '/api/workshops/registrations/erase/:id',
    roles: ['admin'],
    body: erasureBody,
    handle: async ({ body, params }, { run, user, now }) => {
      const registrationId = params.id;
      const on = await lookups.eventsOfRegistration(registrationId);
      if (!on) throw new HttpError(404, 'not_found', 'There is no such registration.');
      const streams = await Promise.all(
        on.all.map((eventId) => deps.store.readStream(workshop.workshopStream(eventId))),
      );
      const events = streams.flat().filter((event) => event.data.registrationId === registrationId);
      const made = events.find((event) => event.type === 'WorkshopRegistrationMade');
      await run(workshop.workshopStream(on.current), workshop.workshopDecider, {
        type: 'EraseRegistration',
        registrationId,
        linkedFamily: typeof made?.data.clientId === 'string' ? made.data.clientId : null,
        reason: body.reason,
        erasedAt: now.toISOString(),
        actor: { role: user.role, tutorId: user.tutorId },
      });
      // A booking of no known family is its own data subject; its invoices are billed as `registration:{id}`.
      const subject = registrationSubject({ registrationId, clientId: null });
      await vault.shred(subject, now);
      // Its children's names only: a school or "None" (allergies) is in many other answers.
      await scrubStoredAnswers(
        events.map(({ data, ...event }) => ({ ...event, data: { ...data, children: namesOf(data) } })),
      );
      forgetOutboxMail(outboxDir, addressesOf(events));
      return { registration: { id: registrationId, erased: true }, kept: await keptFor(vault, subject) };
    },
  });

  commandRoute<typeof erasureBody, { id: string }>(app, deps, {
    url: '/api/tutors/erase/:id',
    roles: ['admin'],
    body: erasureBody,
    handle: async ({ body, params }, { run, now }) => {
      const tutorId = params.id;
      const streamId = tutor.tutorStream(tutorId);
      const events = await deps.store.readStream(streamId);
      if (events.length === 0) throw new HttpError(404, 'not_found', 'There is no such tutor.');
      const logins = await lookups.loginsOfTutor(tutorId);
      const loginEvents = (await Promise.all(logins.map((id) => deps.store.readStream(user.userStream(id))))).flat();
      await run(streamId, tutor.tutorDecider, { type: 'EraseTutor', reason: body.reason, erasedAt: now.toISOString() });
      await vault.shred(tutorSubject(tutorId), now);
      const tx = await db.connect();
      try {
        await tx.query('begin');
        await tx.query('delete from auth.sessions where user_id = any($1)', [logins]);
        await tx.query('delete from auth.accounts where user_id = any($1)', [logins]);
        // Usernames stay taken forever (never released), but only as a one-way hash of the name.
        await tx.query(
          `update command.usernames set name = 'erased:' || encode(sha256(convert_to(name, 'UTF8')), 'hex'), user_id = null
            where (tutor_id = $1 or user_id = any($2)) and name not like 'erased:%'`,
          [tutorId, logins],
        );
        await tx.query(
          `update command.tutor_names set name = 'erased:' || encode(sha256(convert_to(name, 'UTF8')), 'hex')
            where tutor_id = $1 and kind = 'username' and name not like 'erased:%'`,
          [tutorId],
        );
        await tx.query('commit');
      } catch (error) {
        await tx.query('rollback').catch(() => {});
        throw error;
      } finally {
        tx.release();
      }
      await scrubStoredAnswers([...events, ...loginEvents]);
      forgetOutboxMail(outboxDir, addressesOf(events));
      return { tutor: { id: tutorId, erased: true } };
    },
  });
}

/**
 * What accounting keeps after an erasure, and until when (the erasure screen says so): the billing
 * details of the invoices billed to `billedTo` (a family, or a booking of no known family).
 */
async function keptFor(vault: PersonalDataVault, billedTo: string) {
  const billing = await vault.retainedUntil([familyBillingSubject(billedTo)]);
  return {
    moneyHistory: 'Lessons, invoices, payments, totals and references are kept, without personal data.',
    billingDetailsUntil: billing.at(-1)?.retainUntil ?? null,
  };
}
