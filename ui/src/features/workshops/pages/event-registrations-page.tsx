import { placesText, waitingListSentence } from '@agency/domain/workshop/places';
import { useLocation, useNavigate, useParams } from 'react-router-dom';
import { ErrorAlert } from '../../../components/alert';
import { Button, ButtonLink, ButtonRow } from '../../../components/button';
import { ConfirmAction } from '../../../components/confirm-action';
import { LoadState } from '../../../components/load-state';
import { PageHeading } from '../../../components/page-heading';
import { useCurrentUser } from '../../../lib/current-user';
import { formatDateTime, formatMoney } from '../../../lib/format';
import { useLiveRefresh } from '../../../lib/live-updates';
import { useLoader } from '../../../lib/use-loader';
import { cancelEvent, fetchRegistrations, invoiceDocumentUrl, type WorkshopEvent } from '../api';
import { RegistrationsTable } from '../components/registrations-table';
import { useAction } from '../use-action';
import { awaitingConfirmationNote, cancellationStatus } from '../workflow-status';

const loadRegistrations = (eventId: string, signal: AbortSignal) => fetchRegistrations(eventId, signal);

/**
 * What an admin's booking for a parent came to: workshops/book/{eventId} says so on its way back
 * here, with its children and the places that were left for it.
 */
export type Booked = { booked: 'registered' | 'waitlisted'; places: number; placesLeft: number };
const bookedOf = (state: unknown) =>
  typeof state === 'object' && state !== null && 'booked' in state ? (state as Booked) : null;
const bookedText = ({ booked, places, placesLeft }: Booked, event: string) =>
  booked === 'registered' ? 'The booking is made.' : waitingListSentence(event, placesLeft, places, 'the booking');

/** workshops/{eventId}: the event (dd MMM yyyy hh:mm) and its registrations; a row opens one. */
export function EventRegistrationsPage() {
  const { eventId = '' } = useParams();
  const navigate = useNavigate();
  const { state, retry, refresh } = useLoader(loadRegistrations, eventId);
  // The workflows that follow a cancel, a delete or a move land a moment later, as credit notes
  // (family invoices) and moves (workshops): the page follows them without a reload.
  useLiveRefresh(['workshops', 'family-invoices'], refresh);
  const admin = useCurrentUser().role === 'admin';
  const booked = bookedOf(useLocation().state);
  const cancel = useAction(
    () => 'cancel',
    async (commandId) => {
      await cancelEvent(eventId, commandId);
      retry();
    },
  );
  return (
    <LoadState state={state} onRetry={retry}>
      {({ event, registrations, crediting }) => (
        <>
          <PageHeading title={`${event.description}, ${formatDateTime(event.dateTime)}`}>
            {admin && !event.cancelled ? (
              <>
                <ButtonLink to={`/workshops/book/${event.id}`}>Book for a Parent</ButtonLink>
                <ButtonLink to={`/workshops/edit/${event.id}`} variant="secondary">
                  Edit Event
                </ButtonLink>
                <ConfirmAction
                  label="Cancel Event"
                  title="Cancel this event?"
                  confirmLabel="Cancel Event"
                  keepLabel="Keep Event"
                  disabled={cancel.busy}
                  onConfirm={() => cancel.run()}
                >
                  <p>
                    {event.description}, {formatDateTime(event.dateTime)} is cancelled for good: nobody can book it any
                    more.
                  </p>
                  <p>
                    {registrations.length === 0
                      ? 'Nobody is booked on it.'
                      : `Every parent booked on it (${registrations.length} ${registrations.length === 1 ? 'booking' : 'bookings'}, waiting list included) is e-mailed that it is cancelled, and every invoice for it is credited.`}
                  </p>
                </ConfirmAction>
              </>
            ) : null}
          </PageHeading>
          <Cancellation event={event} />
          {booked ? <p role="status">{bookedText(booked, event.description)}</p> : null}
          <p>
            £{formatMoney(event.price)} a child · {event.placesTaken} of {placesText(event.capacity)} taken
            {event.waitlisted > 0 ? ` · ${event.waitlisted} on the waiting list` : ''}
            {event.location ? ` · ${event.location}` : ''}
          </p>
          <AwaitingConfirmation event={event} />
          {cancel.failure ? <ErrorAlert>{cancel.failure}</ErrorAlert> : null}
          <RegistrationsTable registrations={registrations} crediting={crediting} caption="Registrations" billing />
          <ButtonRow>
            <Button type="button" variant="secondary" onClick={() => navigate('/workshops')}>
              Back to Workshops
            </Button>
          </ButtonRow>
        </>
      )}
    </LoadState>
  );
}

/** A cancelled event's line: its credit notes under way, then each one that credited an invoice (its PDF). */
function Cancellation({ event }: { event: WorkshopEvent }) {
  const status = cancellationStatus(event);
  if (!status) return null;
  return (
    <p role="status">
      <strong>
        {status.text}
        {status.creditNotes.map((note, index) => (
          <span key={note.id}>
            {index > 0 ? ', ' : ''}
            <a href={invoiceDocumentUrl(note.id)} target="_blank" rel="noopener">
              {note.reference}
            </a>
          </span>
        ))}
      </strong>
    </p>
  );
}

/** The places public bookings hold until their parents confirm them (docs/limits.md, "Public bookings"). */
function AwaitingConfirmation({ event }: { event: WorkshopEvent }) {
  const note = awaitingConfirmationNote(event);
  return note ? <p>{note}</p> : null;
}
