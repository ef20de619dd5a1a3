import { erasureBody, familyBillingSubject, registrationSubject } from '@agency/contracts';
import { client, tutor, workshop } from '@agency/domain';
import { HttpError } from '@agency/platform';
import type { PersonalDataVault } from '@agency/platform/personal-data';
import type { FastifyInstance } from 'fastify';
import { commandRoute } from '../pipeline/command-pipeline';
import { type ErasureOptions, erasureSteps } from './erasure-steps';

/**
 * Erasure of a family or of a tutor who has left (ARCHITECTURE, "Personal data"): the decider
 * records who (metadata), when and why; the subject's key is destroyed, so its personal fields
 * read as "Erased" everywhere, the read models included (their projections handle the event);
 * what the command side keeps outside events is cleared: the outbox's mail to it, and for a tutor
 * the login, its sessions and its username (kept command answers are sealed under the key).
 * Money history (lessons, invoices, totals, references) is untouched. The steps after the event
 * are done here at once and again by the erasure reactor, which completes an erasure cut short.
 */
export async function erasureRoutes(app: FastifyInstance, options: ErasureOptions) {
  const { deps, vault } = options;
  const steps = erasureSteps(options);
  const { lookups } = steps;

  commandRoute<typeof erasureBody, { id: string }>(app, deps, {
    url: '/api/clients/erase/:id',
    roles: ['admin'],
    body: erasureBody,
    handle: async ({ body, params }, { run, now }) => {
      const clientId = params.id;
      const events = await steps.familyEvents(clientId);
      if (events.length === 0) throw new HttpError(404, 'not_found', 'There is no such client.');
      const ongoing = await lookups.ongoingEngagementsOfFamily(clientId);
      if (ongoing > 0) {
        throw new HttpError(
          409,
          'conflict',
          `This family still has ${ongoing} ongoing engagement${ongoing === 1 ? '' : 's'}. End them before erasing the family.`,
        );
      }
      await run(client.clientStream(clientId), client.clientDecider, {
        type: 'EraseClient',
        reason: body.reason,
        erasedAt: now.toISOString(),
      });
      // After the event: a retry (same command id) finds it recorded and still completes these steps.
      await steps.completeFamily(clientId, events, { at: now });
      return { client: { id: clientId, erased: true }, kept: await keptFor(vault, clientId) };
    },
  });

  commandRoute<typeof erasureBody, { id: string }>(app, deps, {
    url: '/api/workshops/registrations/erase/:id',
    roles: ['admin'],
    body: erasureBody,
    handle: async ({ body, params }, { run, user, now }) => {
      const registrationId = params.id;
      const on = await lookups.eventsOfRegistration(registrationId);
      if (!on) throw new HttpError(404, 'not_found', 'There is no such registration.');
      const events = await steps.registrationEvents(registrationId, on.all);
      // Whether the booking is a family's is in its events: it is not guessed past one that cannot be read.
      const unreadable = events.find((event) => event.readError);
      if (unreadable?.readError) throw unreadable.readError;
      const made = events.find((event) => event.type === 'WorkshopRegistrationMade');
      await run(workshop.workshopStream(on.current), workshop.workshopDecider, {
        type: 'EraseRegistration',
        registrationId,
        linkedFamily: typeof made?.data.clientId === 'string' ? made.data.clientId : null,
        reason: body.reason,
        erasedAt: now.toISOString(),
        actor: { role: user.role, tutorId: user.tutorId },
      });
      await steps.completeRegistration(registrationId, events, { at: now });
      const subject = registrationSubject({ registrationId, clientId: null });
      return { registration: { id: registrationId, erased: true }, kept: await keptFor(vault, subject) };
    },
  });

  commandRoute<typeof erasureBody, { id: string }>(app, deps, {
    url: '/api/tutors/erase/:id',
    roles: ['admin'],
    body: erasureBody,
    handle: async ({ body, params }, { run, now }) => {
      const tutorId = params.id;
      const events = await steps.tutorEvents(tutorId);
      if (events.length === 0) throw new HttpError(404, 'not_found', 'There is no such tutor.');
      const logins = await steps.tutorLogins(tutorId);
      await run(tutor.tutorStream(tutorId), tutor.tutorDecider, {
        type: 'EraseTutor',
        reason: body.reason,
        erasedAt: now.toISOString(),
      });
      await steps.completeTutor(tutorId, events, logins, { at: now });
      return { tutor: { id: tutorId, erased: true } };
    },
  });
}

/**
 * What accounting keeps after an erasure, and until when (the erasure screen says so): the billing
 * details of the invoices billed to `billedTo` (a family, or a booking of no known family).
 */
async function keptFor(vault: PersonalDataVault, billedTo: string) {
  const billing = await vault.retainedUntil([familyBillingSubject(billedTo)]);
  return {
    moneyHistory: 'Lessons, invoices, payments, totals and references are kept, without personal data.',
    billingDetailsUntil: billing.at(-1)?.retainUntil ?? null,
  };
}
