import { createHash } from 'node:crypto';
import { ERASED, type WorkshopEventDetails } from '@agency/contracts';
import { fold, workshop } from '@agency/domain';
import type { EventStore, RecordedEvent } from '@agency/platform';
import type { FamilyInvoicing } from '../family-invoices/family-invoicing';
import type { CommandContext } from '../pipeline/command-pipeline';
import type { Reactor } from '../reactors/reactor';
import type { WorkshopLookups } from './workshop-lookups';

export const WORKSHOPS_REACTOR = 'workshops';

const { workshopDecider, workshopStream, accountDecider, accountStream } = workshop;

/** The workshop account of an e-mail address: a digest, so no address is in a stream's name. */
export const accountKey = (email: string) =>
  createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 32);

/**
 * The account a registration is invoiced on: the key it was booked with, or, for a booking made
 * before the key was kept, its address's (unknown once that address is erased).
 */
export function accountKeyOf(registration: workshop.Registration): string | null {
  if (registration.accountKey) return registration.accountKey;
  return registration.contact.email === ERASED ? null : accountKey(registration.contact.email);
}

/** The stream folded up to and including `revision` (what it was right after that event). */
const foldUpTo = (history: RecordedEvent[], revision: number) =>
  fold(
    workshopDecider,
    history
      .filter((event) => event.revision <= revision)
      .map((event) => ({ type: event.type, data: event.data }) as never),
  );

/**
 * The invoice a workshop invoice confirmation issues: a line per registration as it was booked on
 * the event it was confirmed for, billed to the linked family's first contact, or else to the
 * booker. One function for the command that checks it before it confirms and the reactor that issues it.
 */
export function workshopInvoiceOf(
  found: { event: WorkshopEventDetails; registration: workshop.Registration }[],
  invoiceId: string,
) {
  const first = found[0]?.registration;
  if (!first) throw new Error('a workshop invoice without registrations');
  const linked = found.find(({ registration }) => registration.clientId !== null)?.registration.clientId ?? null;
  return {
    invoiceId,
    clientId: linked ?? `registration:${first.registrationId}`,
    billedFor: { kind: 'workshops' as const, id: invoiceId },
    lines: found.map(({ event, registration }) => workshop.registrationLine(event, registration.places)),
    billing: linked
      ? undefined
      : {
          name: `${first.contact.firstName} ${first.contact.lastName}`,
          address: first.contact.address,
          postcode: first.contact.postcode,
          email: first.contact.email,
        },
  };
}

/**
 * What follows from a workshop's events, each step on its own stream with a command id of the
 * triggering event and the business key (so a re-run repeats nothing):
 * - an event cancelled: every registration on it then (and not moved away since) has its invoice
 *   credited, and its account freed;
 * - a registration deleted: the same for its invoice;
 * - a registration moved in to another event: it leaves the event it came from;
 * - a workshop invoice confirmed on an account: the family invoice is issued.
 * Accounts are found by the key each registration was booked with, never by an address an erasure changed.
 */
export function workshopReactor({
  store,
  invoicing,
  lookups,
}: {
  store: EventStore;
  invoicing: FamilyInvoicing;
  lookups: WorkshopLookups;
}): Reactor {
  /** Credits the invoice a registration is on (if it is on one) and frees the invoice's registrations. */
  async function creditRegistration(
    act: (key: string) => CommandContext,
    registration: workshop.Registration,
    reason: 'changed' | 'cancelled',
  ) {
    const key = accountKeyOf(registration);
    if (!key) {
      // Booked before keys were kept, and its address erased since: its invoice is found by id.
      const invoiceId = await lookups.invoiceOfRegistration(registration.registrationId);
      if (invoiceId) await invoicing.credit(act(`credit:${invoiceId}`), invoiceId, reason);
      return;
    }
    const stream = accountStream(key);
    const account = await act(registration.registrationId).load(stream, accountDecider);
    const invoiced = account.invoiced.get(registration.registrationId);
    if (!invoiced) return;
    const context = act(`credit:${invoiced.invoiceId}`);
    await invoicing.credit(context, invoiced.invoiceId, reason);
    await context.run(stream, accountDecider, { type: 'NoteCredited', invoiceId: invoiced.invoiceId });
  }

  return {
    name: WORKSHOPS_REACTOR,
    handles: [
      'WorkshopEventCancelled',
      'WorkshopRegistrationDeleted',
      'WorkshopRegistrationMade',
      'WorkshopInvoiceConfirmed',
    ],
    async react(event, act) {
      switch (event.type) {
        case 'WorkshopEventCancelled': {
          const history = await store.readStream(event.streamId);
          const then = foldUpTo(history, event.revision);
          const now = foldUpTo(history, Number.POSITIVE_INFINITY);
          if (then.status === 'none' || now.status === 'none') return;
          for (const registration of then.registrations.values()) {
            // Moved to another event (its move was decided before the cancellation): its invoice goes with it.
            if (now.gone.get(registration.registrationId) === 'moved') continue;
            await creditRegistration(act, registration, 'cancelled');
          }
          return;
        }
        case 'WorkshopRegistrationDeleted': {
          const history = await store.readStream(event.streamId);
          const before = foldUpTo(history, event.revision - 1);
          const registration =
            before.status === 'none' ? undefined : before.registrations.get(String(event.data.registrationId));
          if (registration) await creditRegistration(act, registration, 'changed');
          return;
        }
        case 'WorkshopRegistrationMade': {
          const { movedFrom, registrationId, eventId } = event.data as {
            movedFrom: string | null;
            registrationId: string;
            eventId: string;
          };
          if (movedFrom === null) return;
          const context = act(`move-out:${registrationId}`);
          const from = await context.load(workshopStream(movedFrom), workshopDecider);
          // Out already (a re-run), or deleted from there meanwhile: nothing is left to move.
          if (from.status === 'none' || !from.registrations.has(registrationId)) return;
          await context.run(workshopStream(movedFrom), workshopDecider, {
            type: 'MoveOut',
            registrationId,
            toEventId: eventId,
            actor: { role: context.user.role, tutorId: context.user.tutorId },
          });
          return;
        }
        case 'WorkshopInvoiceConfirmed': {
          const { invoiceId, registrations, discountPence } = event.data as {
            invoiceId: string;
            registrations: { eventId: string; registrationId: string }[];
            discountPence: number;
          };
          const found = [];
          for (const { eventId, registrationId } of registrations) {
            // As it was booked on the event it was invoiced for, even if it has moved or gone since.
            const history = await store.readStream(workshopStream(eventId));
            const made = history.findLast(
              (recorded) =>
                recorded.type === 'WorkshopRegistrationMade' && recorded.data.registrationId === registrationId,
            );
            const state = foldUpTo(history, Number.POSITIVE_INFINITY);
            if (!made || state.status === 'none')
              throw new Error(`registration ${registrationId} is not on event ${eventId}`);
            const { eventId: _on, ...registration } = made.data as workshop.Registration & { eventId: string };
            found.push({ event: state.event, registration });
          }
          await invoicing.issue(act(`issue:${invoiceId}`), { ...workshopInvoiceOf(found, invoiceId), discountPence });
          // A confirmation that raced a delete or a cancellation (decided on the registration as it
          // was a moment before): those reactions found nothing invoiced yet, so the credit is due now.
          for (const { eventId, registrationId } of registrations) {
            const now = foldUpTo(await store.readStream(workshopStream(eventId)), Number.POSITIVE_INFINITY);
            if (now.status === 'none') continue;
            const gone = now.gone.get(registrationId);
            const cancelled = now.status === 'cancelled' && gone !== 'moved';
            if (gone !== 'deleted' && !cancelled) continue;
            const { registration } = found.find((entry) => entry.registration.registrationId === registrationId) ?? {};
            if (registration) await creditRegistration(act, registration, cancelled ? 'cancelled' : 'changed');
          }
          return;
        }
        default:
          return;
      }
    },
  };
}
