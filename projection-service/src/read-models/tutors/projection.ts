import { ERASED, type TutorEvent } from '@agency/contracts';
import { contactColumns } from '../contact-columns';
import { defineProjection } from '../projection';

export const tutorsProjection = defineProjection<TutorEvent>({
  name: 'tutors',
  version: 2,
  migrations: ['005_tutors.sql'],
  handlers: {
    TutorRegistered: (sql, { data: { tutorId, contact, username, invoicePrefix, startDate } }) =>
      sql.query(
        `insert into tutors (id, contact_id, first_name, last_name, address, postcode, email, phone,
                             username, invoice_prefix, start_date)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        [tutorId, contact.id, ...contactColumns(contact), username, invoicePrefix, startDate],
      ),
    TutorDetailsChanged: (sql, { data: { tutorId, contact } }) =>
      sql.query(
        `update tutors set first_name = $2, last_name = $3, address = $4, postcode = $5, email = $6, phone = $7
          where id = $1`,
        [tutorId, ...contactColumns(contact)],
      ),
    TutorTerminated: (sql, { data: { tutorId, endDate } }) =>
      sql.query('update tutors set active = false, end_date = $2 where id = $1', [tutorId, endDate]),
    TutorReactivated: (sql, { data: { tutorId, startDate } }) =>
      sql.query('update tutors set active = true, start_date = $2, end_date = null where id = $1', [
        tutorId,
        startDate,
      ]),
    TutorActivationEmailSent: (sql, { data: { tutorId, sentTo, expiresAt } }) =>
      sql.query('update tutors set activation_sent_to = $2, activation_expires_at = $3 where id = $1', [
        tutorId,
        sentTo,
        expiresAt,
      ]),
    TutorAccountActivated: (sql, { data: { tutorId, userId } }) =>
      sql.query('update tutors set user_id = $2 where id = $1', [tutorId, userId]),
    // The same values the tutor's events read as once the key is destroyed, so a rebuild matches.
    TutorErased: (sql, { data: { tutorId } }) =>
      sql.query(
        `update tutors set first_name = $2, last_name = $2, address = $3, postcode = $2, email = $2, phone = '[]',
                username = 'erased-' || id,
                activation_sent_to = case when activation_sent_to is null then null else $2 end
          where id = $1`,
        [tutorId, ERASED, JSON.stringify([ERASED])],
      ),
  },
});
