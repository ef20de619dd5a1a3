import { randomUUID } from 'node:crypto';
import type pg from 'pg';

/**
 * Which workshop account (`workshop-account-{id}`) an e-mail address books on: a random id, so no
 * stream name holds anything derived from the address (migrations/004_workshop_accounts.sql says why).
 */
export function workshopAccounts(db: pg.Pool) {
  return {
    /** The address's account, made (for `subject`) on its first booking; the same for every booking after. */
    async accountFor(email: string, subject: string): Promise<string> {
      const address = email.trim().toLowerCase();
      const made = await db.query<{ account_id: string }>(
        `insert into command.workshop_accounts (email, account_id, subject) values ($1, $2, $3)
         on conflict (email) do nothing returning account_id`,
        [address, randomUUID().replaceAll('-', ''), subject],
      );
      // Made before (or by a booking at the same moment, committed since): read in a statement of its own.
      const found = made.rows[0]
        ? made
        : await db.query<{ account_id: string }>('select account_id from command.workshop_accounts where email = $1', [
            address,
          ]);
      const id = found.rows[0]?.account_id;
      if (!id) throw new Error('a workshop account that was just made is missing');
      return id;
    },
  };
}

/** An erased subject's addresses lose their accounts' lookup (the accounts' streams stay). */
export const forgetWorkshopAccounts = (db: pg.Pool | pg.ClientBase, subject: string) =>
  db.query('delete from command.workshop_accounts where subject = $1', [subject]);
