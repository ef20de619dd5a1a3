import type pg from 'pg';

/**
 * The only place the command side reads the read models (schema `read`, kept by the projection
 * service). Each lookup is named for the rule or the answer it serves. None may decide a rule that
 * must hold under concurrency (one engagement per student, unique usernames, no termination while
 * a student is current): the read models may lag, so those are decided in streams or unique keys.
 */
export function readModelLookups(db: pg.Pool) {
  const first = async <Row>(sql: string, values: unknown[]): Promise<Row | undefined> =>
    (await db.query(sql, values)).rows[0] as Row | undefined;

  return {
    /** An engagement is started only with a child some family registered. */
    async studentExists(studentId: string): Promise<boolean> {
      return (await first('select 1 from read.children where id = $1', [studentId])) !== undefined;
    },

    /** A family contact's edit is decided on its client's stream. */
    async clientOfContact(contactId: string): Promise<string | undefined> {
      const row = await first<{ client_id: string }>('select client_id from read.contacts where id = $1', [contactId]);
      return row?.client_id;
    },

    /** A tutor's contact (edited with the same form as a family's) is decided on the tutor's stream. */
    async tutorOfContact(contactId: string): Promise<string | undefined> {
      const row = await first<{ id: string }>('select id from read.tutors where contact_id = $1', [contactId]);
      return row?.id;
    },

    /** The prefix of a tutor's invoice references. */
    async invoicePrefixOf(tutorId: string): Promise<string | undefined> {
      const row = await first<{ invoice_prefix: string }>('select invoice_prefix from read.tutors where id = $1', [
        tutorId,
      ]);
      return row?.invoice_prefix;
    },

    /** Whom the activation e-mail greets and where it goes. */
    async activationRecipientOf(tutorId: string): Promise<{ firstName: string; email: string } | undefined> {
      const row = await first<{ first_name: string; email: string }>(
        'select first_name, email from read.tutors where id = $1',
        [tutorId],
      );
      return row && { firstName: row.first_name, email: row.email };
    },

    /** The name an activated tutor's login carries. */
    async tutorNameOf(tutorId: string): Promise<string | undefined> {
      const row = await first<{ first_name: string; last_name: string }>(
        'select first_name, last_name from read.tutors where id = $1',
        [tutorId],
      );
      return row && `${row.first_name} ${row.last_name}`;
    },

    /** Every login linked to a tutor (their own and any made for them): whose sessions end with the tutor's. */
    async loginsOfTutor(tutorId: string): Promise<string[]> {
      return (await db.query('select id from read.users where tutor_id = $1', [tutorId])).rows.map((row) => row.id);
    },
  };
}

export type ReadModelLookups = ReturnType<typeof readModelLookups>;
