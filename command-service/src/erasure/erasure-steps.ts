import { familySubject, registrationSubject, tutorSubject } from '@agency/contracts';
import { client, tutor, user, workshop } from '@agency/domain';
import type { RecordedEvent } from '@agency/platform';
import type { PersonalDataVault } from '@agency/platform/personal-data';
import { Sessions } from '@agency/platform/sessions';
import type pg from 'pg';
import { endFamilyLogins } from '../family-portal/family-logins';
import type { ErasedMail } from '../mail/erased-recipients';
import type { CommandDependencies } from '../pipeline/command-pipeline';
import { readModelLookups } from '../read-model/lookups';
import { forgetWorkshopAccounts } from '../workshops/workshop-accounts';

export type ErasureOptions = { deps: CommandDependencies; db: pg.Pool; vault: PersonalDataVault; outbox: ErasedMail };

/** When the erasure was decided. */
export type ErasureRecord = { at: Date };

/**
 * An event that could not be read holds nothing these steps could find in it; the others must
 * still be cleared and the key still destroyed, so it is left out rather than stopping them.
 */
const readable = (events: RecordedEvent[]) => events.filter((event) => !event.readError);

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

/** The family's contacts, by the ids its events name (in clear, before and after the key goes). */
function contactIdsOf(events: RecordedEvent[]): string[] {
  const found = new Set<string>();
  for (const event of readable(events)) {
    const id = (event.data.contact as { id?: unknown } | undefined)?.id;
    if (typeof id === 'string') found.add(id);
  }
  return [...found];
}

/**
 * What an erasure does once its event is recorded: destroy the subject's key, then clear what the
 * command side keeps outside events. Kept command answers need nothing here: one holding the
 * subject's personal data is sealed under its key, so destroying the key is what erases it
 * (docs/command-ids.md). Every step is idempotent, so the route does them at once and
 * the erasure reactor does them again from the event: an erasure cut short after its event (a
 * crash, a failure, a retry that never came) is completed all the same. Each takes the subject's
 * events as read before the key went (clear values to look for); read after, they hold only ids.
 */
export function erasureSteps({ deps, db, vault, outbox }: ErasureOptions) {
  const lookups = readModelLookups(db);

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
      // Its contacts' logins end with it: links spent, sessions ended (docs/family-access.md).
      await endFamilyLogins(db, new Sessions(db), contactIdsOf(events), 'account-ended');
      await outbox.forget(addressesOf(events));
      await forgetWorkshopAccounts(db, familySubject(clientId));
      await vault.shred(familySubject(clientId), erasure.at);
    },

    /** A booking of no known family is its own data subject; its invoices are billed as `registration:{id}`. */
    async completeRegistration(registrationId: string, events: RecordedEvent[], erasure: ErasureRecord) {
      await outbox.forget(addressesOf(events));
      await forgetWorkshopAccounts(db, registrationSubject({ registrationId, clientId: null }));
      await vault.shred(registrationSubject({ registrationId, clientId: null }), erasure.at);
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
        // An activation e-mailed and never used names the tutor: it goes with their login.
        await tx.query('delete from auth.activation_codes where tutor_id = $1', [tutorId]);
        // Usernames stay taken forever (never released), but only as a keyed one-way digest of the
        // name (an unkeyed hash of a short name is reversed by trying names), kept for the tutor (a
        // login's own name had no tutor on its row, and a row names someone).
        const erasedName = (name: string) =>
          `erased:${Buffer.from(vault.digest('erased-username', name), 'base64url').toString('hex')}`;
        const names = await tx.query<{ name: string }>(
          `select name from command.usernames
            where (tutor_id = $1 or user_id = any($2)) and name not like 'erased:%' for update`,
          [tutorId, logins.logins],
        );
        for (const { name } of names.rows) {
          await tx.query(
            `update command.usernames set name = $2, tutor_id = coalesce(tutor_id, $3), user_id = null where name = $1`,
            [name, erasedName(name), tutorId],
          );
        }
        const tutorNames = await tx.query<{ name: string }>(
          `select name from command.tutor_names
            where tutor_id = $1 and kind = 'username' and name not like 'erased:%' for update`,
          [tutorId],
        );
        for (const { name } of tutorNames.rows) {
          await tx.query(`update command.tutor_names set name = $2 where kind = 'username' and name = $1`, [
            name,
            erasedName(name),
          ]);
        }
        await tx.query('commit');
      } catch (error) {
        await tx.query('rollback').catch(() => {});
        throw error;
      } finally {
        tx.release();
      }
    },
  };
}
