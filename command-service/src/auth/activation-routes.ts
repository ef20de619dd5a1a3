import { activationBody, activationLookupAnswer, activationLookupQuery } from '@agency/contracts';
import { tutor, user } from '@agency/domain';
import { comparePositions, describedBody, HttpError, invalidInput } from '@agency/platform';
import { Sessions } from '@agency/platform/sessions';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { type CommandDependencies, createCommandContext, derivedId, domainToHttp } from '../pipeline/command-pipeline';
import { foldStream } from '../pipeline/stream-states';
import { racePoint } from '../race-points';
import { sha256 } from '../tutors/tutor-routes';
import type { Accounts } from './accounts';
import { loginNameView, TUTOR_LOGINS_REACTOR, tutorLoginOf, tutorNameView } from './activation-reactor';
import { startSession } from './auth-routes';
import { refuseCommonPassword } from './common-passwords';
import { verifyPassword } from './password-hashing';

const UNKNOWN =
  'This activation link is not valid. Please check the link in your email, or ask the agency for a new one.';
const USED = 'This activation link has already been used. Please log in with your username and password.';
const EXPIRED = 'This activation link has expired. Please ask the agency to send you a new one.';

/** An activation's command id: one per code, so every request with the code is the same activation. */
export const activationCommandId = (activationCode: string) => derivedId('tutor-activation', sha256(activationCode));

/**
 * `POST /auth/local/activate`: a tutor turns a single-use, expiring activation code into a login
 * with the password they choose, and is signed in.
 *
 * The decisive write is the activation on the tutor's stream (refused if the tutor was terminated
 * or activated meanwhile); the login's own stream follows from it (the tutor-logins reactor), and
 * the answer waits for that. One activation per code: its command id and its login's id derive
 * from the code, so an activation whose answer never came (the process died once the tutor's stream
 * had it) is completed by a retry with the same code and password, for as long as nobody has
 * signed in with that login; after that the code reads as used.
 */
export async function activationRoutes(
  app: FastifyInstance,
  { accounts, db, deps }: { accounts: Accounts; db: pg.Pool; deps: CommandDependencies },
) {
  const { tutorDecider, tutorStream } = tutor;
  const sessions = new Sessions(db);

  /** Whether this is the login's password (its credentials are written before the tutor's stream has the activation). */
  async function isPasswordOf(userId: string, password: string) {
    const found = await db.query('select password_hash from auth.accounts where user_id = $1', [userId]);
    return found.rows[0] ? verifyPassword(found.rows[0].password_hash, password) : false;
  }

  async function hasSignedIn(userId: string) {
    return ((await db.query('select 1 from auth.sessions where user_id = $1 limit 1', [userId])).rowCount ?? 0) > 0;
  }

  /** The session of a login whose activation the tutor's stream has, once its own stream follows. */
  async function signIn(
    request: FastifyRequest,
    reply: FastifyReply,
    { context, readUpTo, appendedUpTo }: ReturnType<typeof createCommandContext>,
    login: { userId: string; username: string; tutorId: string; name: string },
  ) {
    await context.settle([TUTOR_LOGINS_REACTOR]);
    const recordedName = await context.load(user.userStream(login.userId), loginNameView);
    // Answered once the read side shows the login too (its name, its role), whoever wrote it.
    const read = readUpTo()?.position;
    const appended = appendedUpTo();
    const position = read && (!appended || comparePositions(read, appended) > 0) ? read : appended;
    if (position) await deps.projections.waitFor(position);
    const sessionUser = { id: login.userId, username: login.username, role: 'tutor' as const, tutorId: login.tutorId };
    const token = await startSession(app, sessions, request, reply, sessionUser);
    return { token, user: { ...sessionUser, name: recordedName ?? login.name } };
  }

  // The activation page fills in the username its e-mail named, from the code in its link. A code
  // that cannot activate is answered as any other (null): a guess learns nothing, and a code is 32
  // random bytes, never guessed. The code travels in the query, which the logs blank (front-door.ts).
  app.get(
    '/auth/local/activation',
    { schema: { querystring: activationLookupQuery, response: { 200: activationLookupAnswer } } },
    async (request) => {
      const { code } = request.query as { code: string };
      const found = await db.query(
        'select tutor_id from auth.activation_codes where code_hash = $1 and used_at is null and expires_at > now()',
        [sha256(code)],
      );
      const tutorId: string | undefined = found.rows[0]?.tutor_id;
      if (!tutorId) return { username: null };
      const { state } = foldStream(tutorDecider, await deps.store.readStream(tutorStream(tutorId)));
      const waiting = state.status === 'active' && state.account.status !== 'activated';
      return { username: waiting ? state.username : null };
    },
  );

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

    const tutorId: string = code.tutor_id;
    const commandId = activationCommandId(activationCode);
    const userId = derivedId(commandId, 'login');
    const actor = { id: userId, username, role: 'tutor' as const, tutorId };
    const command = createCommandContext(deps, actor, commandId, commandId);
    const { context } = command;
    const state = await context.load(tutorStream(tutorId), tutorDecider);
    if (state.status === 'none') throw new HttpError(404, 'unknown_code', UNKNOWN);
    const name = (await context.load(tutorStream(tutorId), tutorNameView)) ?? state.username;
    const login = { userId, username: state.username, tutorId, name };
    if (state.account.status === 'activated' && state.account.userId === userId) {
      // This code's own activation, whose answer never came: its retry with the same password
      // completes it. Once anyone has signed in with the login, the code is simply used.
      const sameLogin = username.toLowerCase() === state.username.toLowerCase();
      if (!sameLogin || (await hasSignedIn(userId)) || !(await isPasswordOf(userId, password))) {
        throw new HttpError(410, 'code_used', USED);
      }
      return signIn(request, reply, command, login);
    }
    if (code.used_at) throw new HttpError(410, 'code_used', USED);
    if (code.expired) throw new HttpError(410, 'code_expired', EXPIRED);
    try {
      // Checks the rules (tutor active, not yet activated, the username given) before the code is
      // spent, and the login the reactor will record from the activation: it is never refused.
      tutorDecider.decide({ type: 'ActivateTutorAccount', userId, username }, state, context.now);
      user.userDecider.decide(
        tutorLoginOf({ tutorId, userId, username: state.username }, name),
        user.initialState(),
        context.now,
      );
    } catch (error) {
      throw domainToHttp(error);
    }
    // Before the code is spent, so the tutor can choose another password with the same link.
    refuseCommonPassword(password);
    await racePoint('activation.checked');

    const claimed = await db.query(
      'update auth.activation_codes set used_at = now() where code_hash = $1 and used_at is null and expires_at > now()',
      [codeHash],
    );
    if (claimed.rowCount === 0) throw new HttpError(410, 'code_used', USED);
    // A login still holding the tutor's name that the tutor's stream does not name and that has no
    // stream of its own is the leftover of an activation that died before the tutor's stream had
    // it: it gives the name back first. (One the tutor's stream names is only waiting for its own
    // stream to follow: it stays, and this activation is refused at its append.)
    const held = await db.query('select user_id from command.usernames where tutor_id = $1 and user_id is not null', [
      tutorId,
    ]);
    const current = await context.load(tutorStream(tutorId), tutorDecider);
    const activatedLogin =
      current.status !== 'none' && current.account.status === 'activated' ? current.account.userId : undefined;
    for (const { user_id: leftover } of held.rows) {
      if (leftover === activatedLogin) continue;
      const recorded = await context.load(user.userStream(leftover), user.userDecider);
      if (recorded.status === 'none') await accounts.releaseLogin(leftover);
    }
    // Credentials and the name first (one transaction), then the decisive write on the tutor's
    // stream. Until the tutor's stream has it, any failure gives everything back: no login, the
    // name the tutor's again, the code unspent. Once it has it, nothing is given back: the login
    // is the tutor's, its stream follows, and a retry with the code completes the answer.
    try {
      await accounts.reserveLogin({ userId, username: state.username, password, tutorId });
      await context.run(tutorStream(tutorId), tutorDecider, { type: 'ActivateTutorAccount', userId, username });
    } catch (error) {
      const after = await context.load(tutorStream(tutorId), tutorDecider).catch(() => undefined);
      const activated =
        after?.status !== 'none' && after?.account.status === 'activated' && after.account.userId === userId;
      // Unknown (the store unreachable): kept, since a login taken from an activated tutor could never sign in.
      if (after && !activated) {
        await accounts.releaseLogin(userId);
        await db.query('update auth.activation_codes set used_at = null where code_hash = $1', [codeHash]);
      }
      throw domainToHttp(error);
    }
    return signIn(request, reply, command, login);
  });
}
