import { createHash, randomBytes } from 'node:crypto';
import { noBody, tutorActiveBody, tutorBody, tutorPartnerBody, tutorSuggestionBody } from '@agency/contracts';
import { contactDetails, todayIn, tutor, user as userAggregate } from '@agency/domain';
import { describedBody, forbidden, HttpError, invalidInput, notFound, securityLogger } from '@agency/platform';
import { type SessionEndReason, Sessions } from '@agency/platform/sessions';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { settledTutor } from '../engagements/roster';
import { type CommandContext, type CommandDependencies, commandRoute } from '../pipeline/command-pipeline';
import { racePoint } from '../race-points';
import { readModelLookups } from '../read-model/lookups';
import type { TutorNames } from './tutor-names';

export const ACTIVATION_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

export type TutorRouteOptions = {
  deps: CommandDependencies;
  db: pg.Pool;
  names: TutorNames;
  timeZone: string;
};

export async function tutorRoutes(app: FastifyInstance, options: TutorRouteOptions) {
  const { deps, db, names, timeZone } = options;
  const { tutorDecider, tutorStream } = tutor;
  const lookups = readModelLookups(db);
  const sessions = new Sessions(db);
  /**
   * A termination (every login of the tutor: their own, and any made for them with `npm run
   * user`) or a role change (the tutor's own login): every session ends at once.
   */
  const endSessionsOf = async (tutorId: string, state: tutor.TutorState, reason: SessionEndReason) => {
    const own = state.status !== 'none' && state.account.status === 'activated' ? [state.account.userId] : [];
    const linked = reason === 'terminated' ? await lookups.loginsOfTutor(tutorId) : [];
    for (const userId of new Set([...own, ...linked])) {
      const ended = await sessions.endAllFor(userId, reason);
      if (ended) securityLogger(app.log).warn({ event: 'session.ended', userId, reason, ended }, 'session.ended');
    }
  };

  const loadTutor = async (tutorId: string, load: CommandContext['load']) => {
    const state = await load(tutorStream(tutorId), tutorDecider);
    if (state.status === 'none') throw notFound('There is no such tutor.');
    return state;
  };

  // A suggestion, not a command: nothing is recorded, and the names are only reserved on save.
  app.post('/api/tutors/suggest', describedBody(tutorSuggestionBody), async (request) => {
    const user = await app.authenticate(request);
    if (user.role !== 'admin') throw forbidden();
    const parsed = tutorSuggestionBody.safeParse(request.body ?? {});
    if (!parsed.success) throw invalidInput(parsed.error.issues);
    const { username, prefix } = tutor.suggestTutorNames(
      parsed.data.firstName,
      parsed.data.lastName,
      await names.taken(),
    );
    return { username, prefix, invoicePrefix: prefix };
  });

  commandRoute(app, deps, {
    url: '/api/tutors/contact',
    roles: ['admin'],
    body: tutorBody,
    handle: async ({ body }, { run, now, newId }) => {
      const tutorId = newId();
      const contact = contactDetails(newId(), body.contact);
      const startDate = body.tutor.startDate ?? todayIn(timeZone, now);
      const { username, invoicePrefix } = body.tutor;
      await names.reserve(tutorId, username, invoicePrefix);
      try {
        await run(tutorStream(tutorId), tutorDecider, {
          type: 'RegisterTutor',
          tutorId,
          startDate,
          username,
          invoicePrefix,
          contact,
        });
      } catch (error) {
        await names.release(tutorId);
        throw error;
      }
      return { tutor: { id: tutorId, username, invoicePrefix, startDate, active: true, contact } };
    },
  });

  commandRoute(app, deps, {
    url: '/api/tutors/tutor',
    roles: ['admin'],
    body: tutorBody,
    handle: async ({ body }, { run, load }) => {
      const tutorId = body.tutor.id;
      if (!tutorId)
        throw new HttpError(400, 'invalid_input', 'tutor.id is required', { 'tutor.id': 'tutor.id is required' });
      const state = await loadTutor(tutorId, load);
      const fields: Record<string, string> = {};
      if (body.tutor.username !== state.username) fields['tutor.username'] = 'The username cannot be changed';
      if (body.tutor.invoicePrefix !== state.invoicePrefix)
        fields['tutor.invoicePrefix'] = 'The invoice prefix cannot be changed';
      if (Object.keys(fields).length > 0) {
        throw new HttpError(409, 'conflict', 'A tutor keeps the username and invoice prefix first given.', fields);
      }
      const { id: _id, ...contact } = contactDetails(state.contactId, body.contact);
      await run(tutorStream(tutorId), tutorDecider, { type: 'ChangeTutorDetails', contact });
      return {
        tutor: {
          id: tutorId,
          username: state.username,
          invoicePrefix: state.invoicePrefix,
          contact: { ...contact, id: state.contactId },
        },
      };
    },
  });

  commandRoute<typeof tutorActiveBody, { id: string }>(app, deps, {
    url: '/api/tutors/active/:id',
    roles: ['admin'],
    body: tutorActiveBody,
    handle: async ({ body, params }, context) => {
      const { run, now } = context;
      const today = todayIn(timeZone, now);
      let state: tutor.TutorState;
      if (body.active) {
        await loadTutor(params.id, context.load);
        state = await run(tutorStream(params.id), tutorDecider, {
          type: 'ReactivateTutor',
          startDate: body.startDate ?? today,
        });
      } else {
        // The current students are the roster on the tutor's own stream (ended engagements taken
        // off first), and the termination is appended at that stream's revision: an engagement
        // started meanwhile makes it a conflict, decided again, and refused.
        if ((await settledTutor(deps, params.id, context)).status === 'none') throw notFound('There is no such tutor.');
        await racePoint('tutor.terminate');
        state = await run(tutorStream(params.id), tutorDecider, {
          type: 'TerminateTutor',
          endDate: body.endDate ?? today,
        });
        await endSessionsOf(params.id, state, 'terminated');
      }
      if (state.status === 'none') throw notFound('There is no such tutor.');
      return {
        tutor: {
          id: params.id,
          active: state.status === 'active',
          startDate: state.startDate,
          endDate: state.endDate,
        },
      };
    },
  });

  /** The activation e-mail recorded on the tutor's stream for this link, if it is. */
  async function recordedActivation(tutorId: string, linkId: string) {
    const events = await deps.store.readStream(tutorStream(tutorId));
    const sent = events.find((event) => event.type === 'TutorActivationEmailSent' && event.data.linkId === linkId);
    return sent ? { expiresAt: String(sent.data.expiresAt) } : null;
  }

  commandRoute<typeof noBody, { tutorId: string }>(app, deps, {
    url: '/api/tutors/activate/:tutorId',
    roles: ['admin'],
    body: noBody,
    handle: async ({ params }, { run, load, now, newId }) => {
      const { tutorId } = params;
      // The link of this command (its id derives from the command's): a retry of a run that
      // recorded it answers as that run did, and keeps the code the e-mail will carry.
      const linkId = newId();
      const recorded = await recordedActivation(tutorId, linkId);
      if (recorded) return { tutor: { id: tutorId, activationSent: true, activationExpiresAt: recorded.expiresAt } };
      const state = await loadTutor(tutorId, load);
      tutor.requireAllowed(tutor.lifecycleViewOf(state, now), 'sendActivation');
      const contact = await lookups.activationRecipientOf(tutorId);
      if (!contact) throw notFound('There is no such tutor.');

      // 256 random bits. Only the hash is kept for the check; the code itself waits under the
      // link's id until the mail reactor has sent it (the event names the link, never the code).
      const code = randomBytes(32).toString('base64url');
      const expiresAt = new Date(now.getTime() + ACTIVATION_LIFETIME_MS).toISOString();
      await db.query('delete from auth.activation_codes where tutor_id = $1 and used_at is null', [tutorId]);
      await db.query('insert into auth.activation_codes (code_hash, tutor_id, expires_at) values ($1, $2, $3)', [
        sha256(code),
        tutorId,
        expiresAt,
      ]);
      await db.query(
        `insert into auth.pending_links (id, secret, expires_at) values ($1, $2, $3)
         on conflict (id) do update set secret = excluded.secret, expires_at = excluded.expires_at`,
        [linkId, code, expiresAt],
      );
      try {
        await run(tutorStream(tutorId), tutorDecider, {
          type: 'RecordActivationEmailSent',
          sentTo: contact.email,
          expiresAt,
          linkId,
        });
      } catch (error) {
        // Not recorded, so never mailed: the code must not stay usable or kept. Recorded (the
        // failure came after the append): the mail reactor sends it, so both stay.
        if (!(await recordedActivation(tutorId, linkId).catch(() => true))) {
          await db.query('delete from auth.activation_codes where code_hash = $1', [sha256(code)]);
          await db.query('delete from auth.pending_links where id = $1', [linkId]);
        }
        throw error;
      }
      // Recorded: the e-mail is under way (the mail reactor sends it, and retries until it can).
      return { tutor: { id: tutorId, activationSent: true, activationExpiresAt: expiresAt } };
    },
  });

  // The partner role of a tutor's own login: given and taken back by an admin.
  commandRoute<typeof tutorPartnerBody, { tutorId: string }>(app, deps, {
    url: '/api/tutors/partner/:tutorId',
    roles: ['admin'],
    body: tutorPartnerBody,
    handle: async ({ body, params }, { run, load, now }) => {
      const state = await loadTutor(params.tutorId, load);
      tutor.requireAllowed(tutor.lifecycleViewOf(state, now), 'grantPartner');
      if (state.account.status !== 'activated') throw notFound('There is no such account.');
      const role = body.partner ? 'partner' : 'tutor';
      await run(userAggregate.userStream(state.account.userId), userAggregate.userDecider, {
        type: 'ChangeUserRole',
        role,
        tutorId: params.tutorId,
      });
      await endSessionsOf(params.tutorId, state, 'role-changed');
      return { tutor: { id: params.tutorId, accountRole: role, partner: body.partner } };
    },
  });
}
