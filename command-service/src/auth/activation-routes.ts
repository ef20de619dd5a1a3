import { randomUUID } from 'node:crypto';
import { activationBody } from '@agency/contracts';
import { tutor, user } from '@agency/domain';
import { describedBody, HttpError, invalidInput } from '@agency/platform';
import { Sessions } from '@agency/platform/sessions';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { type CommandDependencies, createCommandContext, domainToHttp } from '../pipeline/command-pipeline';
import { racePoint } from '../race-points';
import { readModelLookups } from '../read-model/lookups';
import { sha256 } from '../tutors/tutor-routes';
import type { Accounts } from './accounts';
import { startSession } from './auth-routes';
import { refuseCommonPassword } from './common-passwords';

const UNKNOWN =
  'This activation link is not valid. Please check the link in your email, or ask the agency for a new one.';
const USED = 'This activation link has already been used. Please log in with your username and password.';
const EXPIRED = 'This activation link has expired. Please ask the agency to send you a new one.';

/**
 * `POST /auth/local/activate`: a tutor turns a single-use, expiring activation code into a login
 * with the password they choose, and is signed in.
 */
export async function activationRoutes(
  app: FastifyInstance,
  { accounts, db, deps }: { accounts: Accounts; db: pg.Pool; deps: CommandDependencies },
) {
  const lookups = readModelLookups(db);
  const { tutorDecider, tutorStream } = tutor;
  const sessions = new Sessions(db);

  app.post('/auth/local/activate', describedBody(activationBody), async (request, reply) => {
    const parsed = activationBody.safeParse(request.body ?? {});
    if (!parsed.success) throw invalidInput(parsed.error.issues);
    const { activationCode, username, password } = parsed.data;
    const codeHash = sha256(activationCode);
    const found = await db.query(
      'select tutor_id, used_at, expires_at <= now() as expired from auth.activation_codes where code_hash = $1',
      [codeHash],
    );
    const code = found.rows[0];
    if (!code) throw new HttpError(404, 'unknown_code', UNKNOWN);
    if (code.used_at) throw new HttpError(410, 'code_used', USED);
    if (code.expired) throw new HttpError(410, 'code_expired', EXPIRED);

    const tutorId: string = code.tutor_id;
    const userId = randomUUID();
    const actor = { id: userId, username, role: 'tutor' as const, tutorId };
    const commandId = randomUUID();
    const { context, appendedUpTo } = createCommandContext(deps, actor, commandId, commandId);
    const state = await context.load(tutorStream(tutorId), tutorDecider);
    try {
      // Checks the rules (tutor active, not yet activated, the username given) before the code is spent.
      tutorDecider.decide({ type: 'ActivateTutorAccount', userId, username }, state, context.now);
    } catch (error) {
      throw domainToHttp(error);
    }
    if (state.status === 'none') throw new HttpError(404, 'unknown_code', UNKNOWN);
    // Before the code is spent, so the tutor can choose another password with the same link.
    refuseCommonPassword(password);
    await racePoint('activation.checked');

    const claimed = await db.query(
      'update auth.activation_codes set used_at = now() where code_hash = $1 and used_at is null and expires_at > now()',
      [codeHash],
    );
    if (claimed.rowCount === 0) throw new HttpError(410, 'code_used', USED);
    const name = (await lookups.tutorNameOf(tutorId)) ?? state.username;
    // A login still holding the tutor's name while the tutor is not activated is the leftover of an
    // activation that died half-way (its user never recorded): it gives the name back first.
    const held = await db.query('select user_id from command.usernames where tutor_id = $1 and user_id is not null', [
      tutorId,
    ]);
    for (const { user_id: leftover } of held.rows) {
      const recorded = await context.load(user.userStream(leftover), user.userDecider);
      if (recorded.status === 'none') await accounts.releaseLogin(leftover);
    }
    // Credentials and the name first (one transaction), then the decisive write on the tutor's
    // stream (refused if the tutor was terminated or activated meanwhile), then the user. Until
    // the tutor's stream has it, any failure gives everything back: no login, the name the
    // tutor's again, the code unspent.
    let activated = false;
    try {
      await accounts.reserveLogin({ userId, username: state.username, password, tutorId });
      await context.run(tutorStream(tutorId), tutorDecider, {
        type: 'ActivateTutorAccount',
        userId,
        username,
      });
      activated = true;
      await context.run(user.userStream(userId), user.userDecider, {
        type: 'RegisterUser',
        userId,
        username: state.username,
        role: 'tutor',
        tutorId,
        name,
      });
    } catch (error) {
      if (!activated) {
        await accounts.releaseLogin(userId);
        await db.query('update auth.activation_codes set used_at = null where code_hash = $1', [codeHash]);
      }
      throw domainToHttp(error);
    }
    const position = appendedUpTo();
    if (position) await deps.projections.waitFor(position);
    const sessionUser = { id: userId, username: state.username, role: 'tutor' as const, tutorId };
    const token = await startSession(app, sessions, request, reply, sessionUser);
    return { token, user: { ...sessionUser, name } };
  });
}
