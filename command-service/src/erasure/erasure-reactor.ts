import type { Reactor } from '../reactors/reactor';
import { type ErasureOptions, erasureSteps } from './erasure-steps';

export const ERASURE = 'erasure';

const HANDLES = ['ClientErased', 'WorkshopRegistrationErased', 'TutorErased'] as const;

/**
 * An erasure's event is recorded before its key is destroyed (one command, one append; the key is
 * not in the log), so a crash or a failure between the two would leave every screen saying
 * "Erased" while the key still opens everything. This completes each erasure from its event: the
 * key destroyed, the outbox and a tutor's login cleared (the same idempotent steps the route took
 * at once, so doing them twice changes nothing).
 *
 * Unlike other reactors, when it is new to a store it begins at the store's first event, not its
 * head: an erasure cut short before this reactor existed is completed too (the first start reads
 * the log through once, in the background).
 */
export async function erasureReactor(options: ErasureOptions): Promise<Reactor> {
  await options.db.query(
    `insert into command.reactor_checkpoints (name, handles) values ($1, $2) on conflict (name) do nothing`,
    [ERASURE, HANDLES],
  );
  const steps = erasureSteps(options);
  return {
    name: ERASURE,
    handles: HANDLES,
    async react(event) {
      const data = event.data as {
        clientId?: string;
        tutorId?: string;
        registrationId?: string;
        eventId?: string;
        erasedAt: string;
      };
      const erasure = { at: new Date(data.erasedAt) };
      if (event.type === 'ClientErased' && data.clientId) {
        await steps.completeFamily(data.clientId, await steps.familyEvents(data.clientId), erasure);
      } else if (event.type === 'TutorErased' && data.tutorId) {
        const events = await steps.tutorEvents(data.tutorId);
        await steps.completeTutor(data.tutorId, events, await steps.tutorLogins(data.tutorId), erasure);
      } else if (event.type === 'WorkshopRegistrationErased' && data.registrationId) {
        // The workshop events it was on (a moved booking has a row on each), and the one named here.
        const on = await steps.lookups.eventsOfRegistration(data.registrationId);
        const workshopEvents = [...(on?.all ?? []), ...(data.eventId ? [data.eventId] : [])];
        const events = await steps.registrationEvents(data.registrationId, workshopEvents);
        await steps.completeRegistration(data.registrationId, events, erasure);
      }
    },
  };
}
