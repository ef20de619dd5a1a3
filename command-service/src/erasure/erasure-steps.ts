import { ERASED, familySubject, personalDataRules, registrationSubject, tutorSubject } from '@agency/contracts';
import { client, tutor, user, workshop } from '@agency/domain';
import type { RecordedEvent } from '@agency/platform';
import type { PersonalDataVault } from '@agency/platform/personal-data';
import type pg from 'pg';
import type { ErasedMail } from '../mail/erased-recipients';
import type { CommandDependencies } from '../pipeline/command-pipeline';
import { readModelLookups } from '../read-model/lookups';

type Data = Record<string, unknown>;

export type ErasureOptions = { deps: CommandDependencies; db: pg.Pool; vault: PersonalDataVault; outbox: ErasedMail };

/** When the erasure was decided and by which command (whose own stored answer names only ids). */
export type ErasureRecord = { at: Date; commandId: string };

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
 * An event that could not be read holds nothing these steps could find in it; the others must
 * still be cleared and the key still destroyed, so it is left out rather than stopping them.
 */
const readable = (events: RecordedEvent[]) => events.filter((event) => !event.readError);

/**
 * What a stored answer naming the subject may hold: the subject's ids (client, contacts,
 * children, tutor, logins) and the values of its personal fields, read before its key is destroyed.
 */
function traceOf(events: RecordedEvent[]): string[] {
  const found = new Set<string>();
  for (const { type, data } of readable(events)) {
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
  for (const event of readable(events)) {
    const data = event.data;
    const contact = data.contact as { email?: unknown } | undefined;
    for (const value of [contact?.email, data.sentTo]) if (typeof value === 'string') found.add(value);
  }
  return [...found];
}

/**
 * What an erasure does once its event is recorded: destroy the subject's key, then clear what the
 * command side keeps outside events. Every step is idempotent, so the route does them at once and
 * the erasure reactor does them again from the event: an erasure cut short after its event (a
 * crash, a failure, a retry that never came) is completed all the same. Each takes the subject's
 * events as read before the key went (clear values to look for); read after, they hold only ids.
 */
export function erasureSteps({ deps, db, vault, outbox }: ErasureOptions) {
  const lookups = readModelLookups(db);

  /**
   * Stored answers of earlier commands that hold any of the subject's ids or personal values are
   * replaced by a note: a retry of such a command gets the note, never the personal data. The
   * erasure's own answer (ids only) is kept, so its retry still gets it.
   */
  async function scrubStoredAnswers(events: RecordedEvent[], erasure: ErasureRecord) {
    const needles = traceOf(events);
    if (needles.length === 0) return;
    await db.query(
      `update command.processed_commands set response = jsonb_build_object('erased', true)
        where response is not null and command_id <> $2
          and exists (select 1 from unnest($1::text[]) v where strpos(response::text, v) > 0)`,
      [needles, erasure.commandId],
    );
  }

  return {
    lookups,

    familyEvents: (clientId: string) => deps.store.readStream(client.clientStream(clientId)),

    /**
     * A booking's events on each workshop event it was on, and any there that could not be read
     * (whose they are cannot be told).
     */
    async registrationEvents(registrationId: string, workshopEventIds: string[]) {
      const streams = await Promise.all(
        [...new Set(workshopEventIds)].map((eventId) => deps.store.readStream(workshop.workshopStream(eventId))),
      );
      return streams.flat().filter((event) => event.readError || event.data.registrationId === registrationId);
    },

    tutorEvents: (tutorId: string) => deps.store.readStream(tutor.tutorStream(tutorId)),

    /** A tutor's logins and their events. */
    async tutorLogins(tutorId: string) {
      const logins = await lookups.loginsOfTutor(tutorId);
      const events = (await Promise.all(logins.map((id) => deps.store.readStream(user.userStream(id))))).flat();
      return { logins, events };
    },

    async completeFamily(clientId: string, events: RecordedEvent[], erasure: ErasureRecord) {
      await outbox.forget(addressesOf(events));
      await vault.shred(familySubject(clientId), erasure.at);
      await scrubStoredAnswers(events, erasure);
    },

    /** A booking of no known family is its own data subject; its invoices are billed as `registration:{id}`. */
    async completeRegistration(registrationId: string, events: RecordedEvent[], erasure: ErasureRecord) {
      await outbox.forget(addressesOf(events));
      await vault.shred(registrationSubject({ registrationId, clientId: null }), erasure.at);
      // Its children's names only: a school or "None" (allergies) is in many other answers.
      await scrubStoredAnswers(
        readable(events).map(({ data, ...event }) => ({ ...event, data: { ...data, children: namesOf(data) } })),
        erasure,
      );
    },

    async completeTutor(
      tutorId: string,
      events: RecordedEvent[],
      logins: { logins: string[]; events: RecordedEvent[] },
      erasure: ErasureRecord,
    ) {
      await outbox.forget(addressesOf(events));
      await vault.shred(tutorSubject(tutorId), erasure.at);
      const tx = await db.connect();
      try {
        await tx.query('begin');
        await tx.query('delete from auth.sessions where user_id = any($1)', [logins.logins]);
        await tx.query('delete from auth.accounts where user_id = any($1)', [logins.logins]);
        // Usernames stay taken forever (never released), but only as a one-way hash of the name,
        // kept for the tutor (a login's own name had no tutor on its row, and a row names someone).
        await tx.query(
          `update command.usernames set name = 'erased:' || encode(sha256(convert_to(name, 'UTF8')), 'hex'),
                  tutor_id = coalesce(tutor_id, $1), user_id = null
            where (tutor_id = $1 or user_id = any($2)) and name not like 'erased:%'`,
          [tutorId, logins.logins],
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
      await scrubStoredAnswers([...events, ...logins.events], erasure);
    },
  };
}
