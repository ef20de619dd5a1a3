import { HttpError } from '@agency/platform';
import { inTransaction } from '@agency/platform/transaction';
import type pg from 'pg';
import { racePoint } from '../race-points';

/**
 * The command side's reservation of tutor usernames and invoice prefixes. A name once given is
 * never released, so it stays unique among all tutors, past ones included. Usernames live in
 * `command.usernames`, the one table that logins reserve theirs in too.
 */
export class TutorNames {
  constructor(private readonly db: pg.Pool) {}

  /** Every username and prefix in use: the tutors' and the other logins' usernames. */
  async taken() {
    const names = await this.db.query(
      `select kind, name from command.tutor_names where kind = 'prefix'
       union all select 'username', name from command.usernames`,
    );
    const usernames = new Set<string>();
    const prefixes = new Set<string>();
    for (const row of names.rows) (row.kind === 'username' ? usernames : prefixes).add(row.name);
    return { usernames, prefixes };
  }

  /**
   * Reserves both names for the tutor, or refuses with 409 and a message per taken field. A name
   * already reserved for this very tutor (a retried command) is its own.
   */
  async reserve(tutorId: string, username: string, invoicePrefix: string) {
    await inTransaction(this.db, async (client) => {
      const fields: Record<string, string> = {};
      // One insert decides it: a login or tutor holding the name (or inserting it right now, which
      // this waits for) makes it a conflict.
      const user = await client.query(
        `with mine as (
           insert into command.usernames (name, tutor_id) values (lower($1), $2)
           on conflict do nothing returning 1
         )
         select 1 from mine
         union all select 1 from command.usernames where name = lower($1) and tutor_id = $2`,
        [username, tutorId],
      );
      if (user.rowCount === 0) fields['tutor.username'] = 'That username is already taken';
      const prefix = await client.query(
        `with mine as (
           insert into command.tutor_names (kind, name, tutor_id) values ('prefix', upper($1), $2)
           on conflict do nothing returning 1
         )
         select 1 from mine
         union all select 1 from command.tutor_names where kind = 'prefix' and name = upper($1) and tutor_id = $2`,
        [invoicePrefix, tutorId],
      );
      if (prefix.rowCount === 0) fields['tutor.invoicePrefix'] = 'That invoice prefix is already taken';
      if (Object.keys(fields).length > 0) {
        const message =
          Object.keys(fields).length === 2
            ? 'That username and invoice prefix are already taken.'
            : `${Object.values(fields)[0]}.`;
        throw new HttpError(409, 'name_taken', message, fields);
      }
      await racePoint('tutor.namesReserved');
    });
  }

  /** Undoes a reservation whose tutor could not be recorded. */
  async release(tutorId: string) {
    await this.db.query(
      `with names as (delete from command.tutor_names where tutor_id = $1)
       delete from command.usernames where tutor_id = $1 and user_id is null`,
      [tutorId],
    );
  }
}
