import type { Role } from '@agency/contracts';
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

    /** Signing in: the account of this username with its password hash, its role and name. */
    async loginByUsername(username: string): Promise<(Login & { passwordHash: string }) | undefined> {
      const row = await first<LoginRow & { password_hash: string }>(
        `select a.user_id, a.password_hash, u.username, ${LOGIN_COLUMNS}
           from auth.accounts a join read.users u on u.id = a.user_id
           left join read.tutors t on t.id = u.tutor_id
          where lower(a.username) = lower($1)`,
        [username],
      );
      return row && { ...toLogin(row), passwordHash: row.password_hash };
    },

    /** A session's user as they are now: the role, the name and the tutor may have changed since sign-in. */
    async loginOf(userId: string): Promise<Login | undefined> {
      const row = await first<LoginRow>(
        `select u.id as user_id, u.username, ${LOGIN_COLUMNS}
           from read.users u left join read.tutors t on t.id = u.tutor_id
          where u.id = $1`,
        [userId],
      );
      return row && toLogin(row);
    },

    /**
     * The months (from `fromMonth` on) the lessons read model holds lessons of an engagement in:
     * where a change of its terms also looks, beyond the months it reads from their streams
     * (timesheet.monthsToReprice). Through the tutor's (tutor, month, date) index.
     */
    async lessonMonthsOf(tutorId: string, engagementId: string, fromMonth: string): Promise<string[]> {
      const found = await db.query(
        `select distinct month from read.lessons
          where tutor_id = $1 and month >= $3 and engagement_id = $2 order by month`,
        [tutorId, engagementId, fromMonth],
      );
      return found.rows.map((row) => row.month as string);
    },

    /**
     * The admin logins besides `userId` (on or off: whether each is on is read from its stream).
     * Admin is a role given only at registration, so a lagging read model can only leave out one
     * registered a moment ago: it counts fewer admins, never more.
     */
    async otherAdminLogins(userId: string): Promise<string[]> {
      const found = await db.query("select id from read.users where role = 'admin' and id <> $1 order by id", [userId]);
      return found.rows.map((row) => row.id);
    },

    /** Who the demo data and scripts act as. */
    async firstAdmin(): Promise<{ id: string; username: string } | undefined> {
      return first("select id, username from read.users where role = 'admin' order by username limit 1", []);
    },

    /** Whom a family sign-in link asked for at this address goes to: every contact of a family not erased with it. */
    async familyContactsByEmail(email: string): Promise<{ contactId: string; clientId: string }[]> {
      const found = await db.query(
        `select c.id, c.client_id from read.contacts c join read.clients f on f.id = c.client_id
          where lower(c.email) = lower($1) and not f.erased order by c.id`,
        [email],
      );
      return found.rows.map((row) => ({ contactId: row.id, clientId: row.client_id }));
    },

    /** A family login's contact as it is now: its family, its name, and whether the family was erased. */
    async familyContact(
      contactId: string,
    ): Promise<{ clientId: string; firstName: string; lastName: string; erased: boolean } | undefined> {
      const row = await first<{ client_id: string; first_name: string; last_name: string; erased: boolean }>(
        `select c.client_id, c.first_name, c.last_name, f.erased
           from read.contacts c join read.clients f on f.id = c.client_id where c.id = $1`,
        [contactId],
      );
      return row && { clientId: row.client_id, firstName: row.first_name, lastName: row.last_name, erased: row.erased };
    },

    /** A family's booking as itself: the signed-in contact's details, as a booking records them, and the family's children. */
    async familyBooker(contactId: string, clientId: string) {
      const [contact, children] = await Promise.all([
        first<{
          first_name: string;
          last_name: string;
          address: string[];
          postcode: string;
          email: string;
          phone: { number: string }[];
        }>(
          'select first_name, last_name, address, postcode, email, phone from read.contacts where id = $1 and client_id = $2',
          [contactId, clientId],
        ),
        db.query('select id, first_name, last_name from read.children where client_id = $1', [clientId]),
      ]);
      if (!contact) return undefined;
      return {
        contact: {
          firstName: contact.first_name,
          lastName: contact.last_name,
          address: contact.address,
          postcode: contact.postcode,
          email: contact.email,
          phone: contact.phone[0]?.number ?? '',
        },
        children: new Map<string, { firstName: string; lastName: string }>(
          children.rows.map((row) => [row.id, { firstName: row.first_name, lastName: row.last_name }]),
        ),
      };
    },

    /** Who a password reset asked for by username or e-mail goes to, with the address it goes to. */
    async resetRecipients(identifier: string): Promise<(Login & { email: string | null })[]> {
      const found = await db.query(
        `select a.user_id, a.username, ${LOGIN_COLUMNS}, t.email
           from auth.accounts a
           join read.users u on u.id = a.user_id
           left join read.tutors t on t.id = u.tutor_id
          where lower(a.username) = lower($1) or lower(t.email) = lower($1)`,
        [identifier],
      );
      return found.rows.map((row) => ({ ...toLogin(row), email: row.email }));
    },

    /**
     * Every login of a tutor: linked to the tutor now (their own and any made for them), or
     * registered for the tutor and linked elsewhere since (its name and username are still the
     * tutor's personal data, erased with the tutor). Whose sessions end with the tutor's.
     */
    async loginsOfTutor(tutorId: string): Promise<string[]> {
      const found = await db.query('select id from read.users where tutor_id = $1 or registered_tutor_id = $1', [
        tutorId,
      ]);
      return found.rows.map((row) => row.id);
    },

    /**
     * A family is erased only once every engagement of its children has been ended (given an end
     * date): one still open means the family is still being taught.
     */
    async ongoingEngagementsOfFamily(clientId: string): Promise<number> {
      const row = await first<{ count: string }>(
        `select count(*) from read.engagements e join read.children c on c.id = e.student_id
          where c.client_id = $1 and e.end_date is null`,
        [clientId],
      );
      return Number(row?.count ?? 0);
    },

    /**
     * The workshop events a booking was on (a move leaves a row on each), to read its events
     * from their streams; `current`: the one it is on now (or was deleted from), where its erasure
     * is decided. Undefined when there is no such booking.
     */
    async eventsOfRegistration(registrationId: string): Promise<{ current: string; all: string[] } | undefined> {
      const { rows } = await db.query<{ event_id: string; status: string }>(
        'select event_id, status from read.workshop_registrations where id = $1 order by seq',
        [registrationId],
      );
      const current = rows.find((row) => row.status !== 'moved') ?? rows.at(-1);
      return current && { current: current.event_id, all: rows.map((row) => row.event_id) };
    },
  };
}

export type ReadModelLookups = ReturnType<typeof readModelLookups>;

/**
 * A login as the users read model names it, and whether its tutor still works for the agency
 * (a terminated tutor's logins may no longer sign in or reset a password).
 */
export type Login = {
  userId: string;
  username: string;
  role: Role;
  tutorId: string | null;
  name: string;
  tutorActive: boolean;
  /** false once an admin turned the login off: it may not sign in or reset its password. */
  active: boolean;
};

type LoginRow = {
  user_id: string;
  username: string;
  role: Role;
  tutor_id: string | null;
  name: string;
  tutor_active: boolean;
  login_active: boolean;
};

const toLogin = (row: LoginRow): Login => ({
  userId: row.user_id,
  username: row.username,
  role: row.role,
  tutorId: row.tutor_id,
  name: row.name,
  tutorActive: row.tutor_active,
  active: row.login_active,
});

const LOGIN_COLUMNS = 'u.role, u.tutor_id, u.name, coalesce(t.active, true) as tutor_active, u.active as login_active';
