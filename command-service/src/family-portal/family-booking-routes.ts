import { familyBookingBody } from '@agency/contracts';
import { familyAccess, nowLocalIn, workshop } from '@agency/domain';
import { forbidden, notFound } from '@agency/platform';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { type CommandDependencies, commandRoute, derivedId } from '../pipeline/command-pipeline';
import { readModelLookups } from '../read-model/lookups';
import { workshopAccounts } from '../workshops/workshop-accounts';

/**
 * `POST /api/family/bookings`: a signed-in family books a workshop for its own children, as
 * itself (docs/family-access.md): the contact who is signed in is the booker, no address is typed
 * and no link confirms it (the sign-in proved the address). It goes on the family's account, on
 * the waiting list when the places left are too few, exactly as an admin's booking for it would.
 */
export async function familyBookingRoutes(
  app: FastifyInstance,
  { deps, db, timeZone }: { deps: CommandDependencies; db: pg.Pool; timeZone: string },
) {
  const lookups = readModelLookups(db);
  const accounts = workshopAccounts(db);
  commandRoute(app, deps, {
    url: '/api/family/bookings',
    roles: ['family'],
    body: familyBookingBody,
    handle: async ({ body }, context) => {
      const { user } = context;
      const contactId = familyAccess.contactOfFamilyUser(user.id);
      if (!contactId || !user.clientId) throw forbidden();
      const booker = await lookups.familyBooker(contactId, user.clientId);
      if (!booker) throw notFound('There is no such family.');
      const children = [...new Set(body.childIds)].map((id) => booker.children.get(id));
      // Another family's child is as unknown here as a child nobody registered.
      if (children.some((child) => child === undefined)) throw notFound('There is no such child in your family.');
      const registrationId = derivedId(context.commandId, 'registration', body.eventId);
      const state = await context.run(workshop.workshopStream(body.eventId), workshop.workshopDecider, {
        type: 'Register',
        registration: {
          registrationId,
          clientId: user.clientId,
          contact: booker.contact,
          children: children.map((child) => ({
            firstName: child?.firstName ?? '',
            lastName: child?.lastName ?? '',
            school: '',
            schoolYear: '',
            allergies: '',
          })),
          comments: '',
          accountKey: await accounts.accountFor(booker.contact.email, user.clientId),
        },
        nowLocal: nowLocalIn(timeZone, context.now),
        now: context.now,
      });
      const registration = state.status === 'none' ? undefined : state.registrations.get(registrationId);
      if (!registration) throw notFound('There is no such workshop.');
      return {
        booking: {
          id: registrationId,
          eventId: body.eventId,
          state: registration.status === 'registered' ? 'confirmed' : 'waiting list',
          places: registration.places,
        },
      };
    },
  });
}
