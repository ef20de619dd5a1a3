import { randomUUID } from 'node:crypto';
import type { Role, SessionUser } from '@agency/contracts';
import { familyAccess, user as userAggregate } from '@agency/domain';
import { HttpError } from '@agency/platform';
import { type SessionEndReason, Sessions } from '@agency/platform/sessions';
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

/** Why a login may not sign in now: its tutor was terminated, or an admin turned it off. */
export type Barred = 'tutor-ended' | 'turned-off';

/** A user as they are now; `barred` when they may no longer sign in, and why. */
export type Profile = SessionUser & { name: string; barred: Barred | null };

const barredOf = (login: Login): Barred | null => {
  if (!login.active) return 'turned-off';
  return login.role !== 'admin' && !login.tutorActive ? 'tutor-ended' : null;
};

const toProfile = (login: Login): Profile => ({
  id: login.userId,
  username: login.username,
  role: login.role,
  tutorId: login.tutorId ?? undefined,
  name: login.name,
  barred: barredOf(login),
});

/** The session's user of a profile: who a token names (never the profile's other fields). */
export const sessionUserOf = ({ id, username, role, tutorId, clientId }: Profile): SessionUser => ({
  id,
  username,
  role,
  ...(tutorId === undefined ? {} : { tutorId }),
  ...(clientId === undefined ? {} : { clientId }),
});

const BARRED: Record<Barred, { code: string; message: string; sessionsEnd: SessionEndReason }> = {
  'tutor-ended': {
    code: 'account_ended',
    message: 'Your tutor account has ended. Please contact the office if this is a mistake.',
    sessionsEnd: 'account-ended',
  },
  'turned-off': {
    code: 'login_turned_off',
    message: 'This login has been turned off. Please contact the office if this is a mistake.',
    sessionsEnd: 'login-turned-off',
  },
};

/** The 403 a barred login gets where it tries to sign in (only once its password or link was right). */
export const barredError = (barred: Barred) => new HttpError(403, BARRED[barred].code, BARRED[barred].message);

/** Why a barred login's sessions end, in the sessions table and the security log. */
export const barredSessionsEnd = (barred: Barred): SessionEndReason => BARRED[barred].sessionsEnd;

/** Turning admin logins off, one at a time, so two admins cannot each turn the other off (the lock's key). */
const ADMIN_LOGINS_LOCK = "hashtext('auth.admin-logins')";

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
    const contactId = familyAccess.contactOfFamilyUser(userId);
    if (contactId !== undefined) return this.familyProfile(userId, contactId);
    const login = await this.lookups.loginOf(userId);
    return login ? toProfile(login) : null;
  }

  /**
   * Runs `turnOff` while no other login is being turned off (a session-level advisory lock on a
   * connection of its own), with the admin logins besides `userId`: whether each is on is read
   * from its stream inside, so the last admin that is on stays on under any concurrency.
   */
  async turningOffLogin<T>(userId: string, turnOff: (otherAdmins: string[]) => Promise<T>): Promise<T> {
    const client = await this.db.connect();
    try {
      await client.query(`select pg_advisory_lock(${ADMIN_LOGINS_LOCK})`);
      return await turnOff(await this.lookups.otherAdminLogins(userId));
    } finally {
      // A connection that could not let go of the lock is closed, which lets go of it.
      const unlocked = await client.query(`select pg_advisory_unlock(${ADMIN_LOGINS_LOCK})`).then(
        () => true,
        () => false,
      );
      client.release(!unlocked);
    }
  }

  /**
   * A family login as it is now (docs/family-access.md): its contact's name and family; barred once
   * the family is erased. A login turned off has no session left to ask with (its sessions end
   * with the turning off, and no link signs it in again).
   */
  private async familyProfile(userId: string, contactId: string): Promise<Profile | null> {
    const contact = await this.lookups.familyContact(contactId);
    if (!contact) return null;
    return {
      id: userId,
      username: userId,
      role: 'family',
      clientId: contact.clientId,
      name: `${contact.firstName} ${contact.lastName}`,
      barred: contact.erased ? 'turned-off' : null,
    };
  }

  /** Ends every live session of a login (idempotent): answers how many were live. */
  endSessionsOf(userId: string, reason: SessionEndReason): Promise<number> {
    return new Sessions(this.db).endAllFor(userId, reason);
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
