import { randomUUID } from 'node:crypto';
import type { Role, SessionUser } from '@agency/contracts';
import { user as userAggregate } from '@agency/domain';
import { HttpError } from '@agency/platform';
import { inTransaction } from '@agency/platform/transaction';
import type pg from 'pg';
import type { CommandContext } from '../pipeline/command-pipeline';
import { racePoint } from '../race-points';
import { type Login, type ReadModelLookups, readModelLookups } from '../read-model/lookups';
import { hashPassword, verifyPassword } from './password-hashing';

export { hashPassword };

/** Spends the same time on an unknown username as on a wrong password. */
const unknownUserHash = hashPassword(randomUUID());

export type Account = { userId: string; username: string };

/** A user as they are now; `tutorEnded` when their tutor was terminated (they may no longer sign in). */
export type Profile = SessionUser & { name: string; tutorEnded: boolean };

const toProfile = (login: Login): Profile => ({
  id: login.userId,
  username: login.username,
  role: login.role,
  tutorId: login.tutorId ?? undefined,
  name: login.name,
  tutorEnded: login.role !== 'admin' && !login.tutorActive,
});

export class Accounts {
  private readonly lookups: ReadModelLookups;

  constructor(private readonly db: pg.Pool) {
    this.lookups = readModelLookups(db);
  }

  /** The user for these credentials, or null. Role and name come from the users read model. */
  async verify(username: string, password: string): Promise<Profile | null> {
    const login = await this.lookups.loginByUsername(username);
    const matches = await verifyPassword(login?.passwordHash ?? (await unknownUserHash), password);
    if (!login || !matches) return null;
    return toProfile(login);
  }

  /** The user as they are now (role may have changed since the token was issued). */
  async profile(userId: string): Promise<Profile | null> {
    const login = await this.lookups.loginOf(userId);
    return login ? toProfile(login) : null;
  }

  async firstAdmin(): Promise<SessionUser | null> {
    const admin = await this.lookups.firstAdmin();
    return admin ? { id: admin.id, username: admin.username, role: 'admin' } : null;
  }

  async count(): Promise<number> {
    const result = await this.db.query('select count(*)::int as n from auth.accounts');
    return result.rows[0].n;
  }

  async setPassword(userId: string, password: string) {
    await this.db.query('update auth.accounts set password_hash = $2, updated_at = now() where user_id = $1', [
      userId,
      await hashPassword(password),
    ]);
  }

  /**
   * Reserves the username for this login in `command.usernames` (the one table tutors' names are
   * in too) and writes its credentials, in one transaction, or refuses with 409 and writes
   * nothing. A tutor's own login takes the name kept for that tutor; a name already reserved for
   * this very user (a retried command) is its own.
   */
  async reserveLogin(input: { userId: string; username: string; password: string; tutorId: string | null }) {
    const passwordHash = await hashPassword(input.password);
    await inTransaction(this.db, async (client) => {
      const { userId, username, tutorId } = input;
      const reserved =
        (
          await client.query(
            'insert into command.usernames (name, user_id) values (lower($1), $2) on conflict do nothing returning 1',
            [username, userId],
          )
        ).rowCount ||
        (
          await client.query(
            `update command.usernames set user_id = $2
              where name = lower($1) and tutor_id = $3 and (user_id is null or user_id = $2) returning 1`,
            [username, userId, tutorId],
          )
        ).rowCount ||
        (
          await client.query('select 1 from command.usernames where name = lower($1) and user_id = $2', [
            username,
            userId,
          ])
        ).rowCount;
      const credentials =
        reserved &&
        (
          await client.query(
            `with mine as (
               insert into auth.accounts (user_id, username, password_hash) values ($1, $2, $3) on conflict do nothing
               returning 1
             )
             select 1 from mine union all select 1 from auth.accounts where user_id = $1 and lower(username) = lower($2)`,
            [userId, username, passwordHash],
          )
        ).rowCount;
      if (!credentials) {
        throw new HttpError(409, 'username_taken', 'That username is already taken.', {
          username: 'That username is already taken',
        });
      }
      await racePoint('login.usernameReserved');
    });
  }

  /** Undoes `reserveLogin` whose user could not be recorded: no credentials, and the name free again (or the tutor's again). */
  async releaseLogin(userId: string) {
    await this.db.query(
      `with credentials as (delete from auth.accounts where user_id = $1),
            own as (delete from command.usernames where user_id = $1 and tutor_id is null)
       update command.usernames set user_id = null where user_id = $1 and tutor_id is not null`,
      [userId],
    );
  }

  /**
   * The username and credentials are reserved first (one transaction), then the event is
   * recorded; if it cannot be, both are removed again, so no half-made user remains.
   */
  async register(
    context: CommandContext,
    input: { username: string; password: string; role: Role; tutorId: string | null; name: string; userId?: string },
  ) {
    const userId = input.userId ?? context.newId();
    await this.reserveLogin({ userId, username: input.username, password: input.password, tutorId: input.tutorId });
    try {
      await context.run(userAggregate.userStream(userId), userAggregate.userDecider, {
        type: 'RegisterUser',
        userId,
        username: input.username,
        role: input.role,
        tutorId: input.tutorId,
        name: input.name,
      });
    } catch (error) {
      // Released only while the user is not recorded: once it is, a retry completes the rest.
      const recorded = await context
        .load(userAggregate.userStream(userId), userAggregate.userDecider)
        .catch(() => undefined);
      if (recorded?.status === 'none') await this.releaseLogin(userId);
      throw error;
    }
    return { userId };
  }
}
