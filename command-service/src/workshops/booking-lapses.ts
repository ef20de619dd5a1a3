import { registrationSubject, type SessionUser } from '@agency/contracts';
import { nowLocalIn, workshop } from '@agency/domain';
import type { PersonalDataVault } from '@agency/platform/personal-data';
import { type CommandDependencies, createCommandContext, derivedId } from '../pipeline/command-pipeline';
import type { BookingLinks } from './booking-links';

/** Who records a lapse: nobody signed in; the chore does it when the hold has run out. */
const LAPSE_CHORE = { id: 'booking-lapses', username: 'system', role: 'admin' } as unknown as SessionUser;

/**
 * The chore that ends unconfirmed public bookings (docs/limits.md, "Public bookings"): for each
 * link past its time, the booking lapses on its event's stream (its held places go to the
 * waiting list, in booking order) unless it was confirmed; the request's personal data is
 * destroyed (nobody confirmed it is anybody's); then the link goes. Every step may run again:
 * a crash between two of them is completed at the next run, with the same command id.
 */
export function bookingLapses(options: {
  deps: CommandDependencies;
  links: BookingLinks;
  timeZone: string;
  vault?: Pick<PersonalDataVault, 'shred'>;
}) {
  const { deps, links, timeZone, vault } = options;
  const { workshopDecider, workshopStream } = workshop;
  return async function lapseDueBookings(): Promise<number> {
    const due = await links.due(deps.clock(), 50);
    for (const { eventId, registrationId, linkId } of due) {
      const commandId = derivedId('booking-lapse', registrationId);
      const { context } = createCommandContext(deps, LAPSE_CHORE, commandId, commandId);
      const state = await context.run(workshopStream(eventId), workshopDecider, {
        type: 'LapseBooking',
        registrationId,
        nowLocal: nowLocalIn(timeZone, context.now),
        now: context.now,
      });
      const lapsed = state.status !== 'none' && state.gone.get(registrationId) === 'lapsed';
      if (lapsed) await vault?.shred(registrationSubject({ registrationId }), context.now);
      await links.discard(registrationId, linkId);
    }
    return due.length;
  };
}
