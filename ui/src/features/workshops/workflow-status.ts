import type { CreditingRegistrationView, EventView, RegistrationView } from '@agency/contracts';

/**
 * What a cancelled event's crediting workflow has done: under way while fewer credit notes are
 * issued than invoices billed its registrations, then the notes that credited them. Null while
 * the event stands.
 */
export function cancellationStatus(event: Pick<EventView, 'cancelled' | 'credits'>) {
  if (!event.cancelled) return null;
  const invoices = event.credits?.invoices ?? 0;
  const creditNotes = event.credits?.creditNotes ?? [];
  if (creditNotes.length < invoices) {
    return { text: `Cancelled — issuing credit notes (${creditNotes.length} of ${invoices})`, creditNotes: [] };
  }
  return creditNotes.length > 0
    ? { text: 'Cancelled — credited by ', creditNotes }
    : { text: 'Cancelled', creditNotes: [] };
}

/** A registration on two events while its move is under way: where it comes from, or goes to. */
export function movingNote(registration: Pick<RegistrationView, 'moving'>) {
  const { moving } = registration;
  if (!moving) return null;
  return moving.direction === 'from' ? `Moving from ${moving.event}` : `Moving to ${moving.event}`;
}

/** A deleted registration whose invoice the workflow has not credited yet. */
export const creditingNote = (registration: Pick<CreditingRegistrationView, 'invoiceRef'>) =>
  `Deleted — crediting ${registration.invoiceRef ?? 'its invoice'}`;

const counted = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * Public bookings not confirmed yet from their e-mailed link (docs/limits.md, "Public bookings"):
 * the places they hold, and those bound for the waiting list. Null when none waits.
 */
export function awaitingConfirmationNote(event: Pick<EventView, 'placesHeld' | 'waitlistRequests'>) {
  const parts = [
    event.placesHeld > 0 ? `${counted(event.placesHeld, 'place', 'places')} held` : '',
    event.waitlistRequests > 0
      ? counted(event.waitlistRequests, 'request for the waiting list', 'requests for the waiting list')
      : '',
  ].filter((part) => part !== '');
  return parts.length > 0 ? `${parts.join(' and ')}, awaiting the parents' confirmation` : null;
}
