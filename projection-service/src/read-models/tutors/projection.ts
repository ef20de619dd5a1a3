import { ERASED, type TutorEvent } from '@agency/contracts';
import type { RecordedEvent } from '@agency/platform';
import type pg from 'pg';
import { contactColumns } from '../contact-columns';
import { defineProjection } from '../projection';
import { snapshotVersion, type VersionTable } from '../versions';

/**
 * The versions of tutors' rows (053_tutor_versions.sql), in the columns the views as of a past
 * moment read: names and address (invoices, lessons, engagements) and the spell (the status report).
 */
const TUTOR_VERSIONS: VersionTable = {
  name: 'tutor_versions',
  key: [['id', 'text']],
  values: [
    ['first_name', 'text'],
    ['last_name', 'text'],
    ['address', 'jsonb'],
    ['postcode', 'text'],
    ['email', 'text'],
    ['start_date', 'date'],
    ['end_date', 'date'],
    ['active', 'boolean'],
  ],
};

/** After an event that changed a tutor's row in those columns: its version as the row now is. */
const versionOf = (sql: pg.ClientBase, tutorId: string, event: unknown) =>
  snapshotVersion(sql, TUTOR_VERSIONS, 'tutors', [tutorId], event as RecordedEvent);

export const tutorsProjection = defineProjection<TutorEvent>({
  name: 'tutors',
  version: 3,
  migrations: ['005_tutors.sql', '053_tutor_versions.sql', '055_tutor_name_search.sql'],
  handlers: {
    TutorRegistered: async (sql, event) => {
      const { tutorId, contact, username, invoicePrefix, startDate } = event.data;
      await sql.query(
        `insert into tutors (id, contact_id, first_name, last_name, address, postcode, email, phone,
                             username, invoice_prefix, start_date)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        [tutorId, contact.id, ...contactColumns(contact), username, invoicePrefix, startDate],
      );
      await versionOf(sql, tutorId, event);
    },
    TutorDetailsChanged: async (sql, event) => {
      const { tutorId, contact } = event.data;
      await sql.query(
        `update tutors set first_name = $2, last_name = $3, address = $4, postcode = $5, email = $6, phone = $7
          where id = $1`,
        [tutorId, ...contactColumns(contact)],
      );
      await versionOf(sql, tutorId, event);
    },
    TutorTerminated: async (sql, event) => {
      const { tutorId, endDate } = event.data;
      await sql.query('update tutors set active = false, end_date = $2 where id = $1', [tutorId, endDate]);
      await versionOf(sql, tutorId, event);
    },
    TutorReactivated: async (sql, event) => {
      const { tutorId, startDate } = event.data;
      await sql.query('update tutors set active = true, start_date = $2, end_date = null where id = $1', [
        tutorId,
        startDate,
      ]);
      await versionOf(sql, tutorId, event);
    },
    TutorActivationEmailSent: (sql, { data: { tutorId, sentTo, expiresAt } }) =>
      sql.query('update tutors set activation_sent_to = $2, activation_expires_at = $3 where id = $1', [
        tutorId,
        sentTo,
        expiresAt,
      ]),
    TutorAccountActivated: (sql, { data: { tutorId, userId } }) =>
      sql.query('update tutors set user_id = $2 where id = $1', [tutorId, userId]),
    // The same values the tutor's events read as once the key is destroyed, so a rebuild matches;
    // in every version too, as a rebuild (which reads every event of the tutor so) writes them.
    TutorErased: async (sql, { data: { tutorId } }) => {
      await sql.query(
        `update tutors set first_name = $2, last_name = $2, address = $3, postcode = $2, email = $2, phone = '[]',
                username = 'erased-' || id,
                activation_sent_to = case when activation_sent_to is null then null else $2 end
          where id = $1`,
        [tutorId, ERASED, JSON.stringify([ERASED])],
      );
      await sql.query(
        'update tutor_versions set first_name = $2, last_name = $2, address = $3, postcode = $2, email = $2 where id = $1',
        [tutorId, ERASED, JSON.stringify([ERASED])],
      );
    },
  },
});
