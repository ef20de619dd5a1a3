import { placesLeftText } from '@agency/domain/workshop/places';
import { useNavigate, useParams } from 'react-router-dom';
import { BookingForm, bookingOf, useBookingForm } from '../../../components/booking-form';
import { LoadState } from '../../../components/load-state';
import { PageHeading } from '../../../components/page-heading';
import { formatDateTime } from '../../../lib/format';
import { useLoader } from '../../../lib/use-loader';
import { bookForParent, fetchRegistrations } from '../api';
import type { Booked } from './event-registrations-page';

const loadEvent = (eventId: string, signal: AbortSignal) => fetchRegistrations(eventId, signal);

/** The booking form, sent as the admin's booking: confirmed at once, back to the event's registrations. */
function AdminBooking({ eventId }: { eventId: string }) {
  const navigate = useNavigate();
  const { state, retry } = useLoader(loadEvent, eventId);
  const booking = useBookingForm(async (values, commandId) => {
    const registration = await bookForParent({ commandId, eventId, ...bookingOf(values) });
    const booked: Booked = {
      booked: registration.status,
      places: registration.places,
      placesLeft: registration.placesLeft,
    };
    navigate(`/workshops/${eventId}`, { state: booked });
  });
  return (
    <LoadState state={state} onRetry={retry}>
      {({ event }) => (
        <>
          <p>
            {event.description}, {formatDateTime(event.dateTime)} ·{' '}
            {event.placesLeft > 0 ? placesLeftText(event.placesLeft) : 'Full: the children will be on the waiting list'}
          </p>
          <BookingForm
            booking={booking}
            forParent
            placesLeft={event.placesLeft}
            onCancel={() => navigate(`/workshops/${eventId}`)}
          />
        </>
      )}
    </LoadState>
  );
}

/**
 * workshops/book/{eventId}: an admin books on a parent's behalf, with the public page's form (no
 * confirmation link: docs/limits.md, "Public bookings"). Only an admin sees the form (the router's
 * guard, components/admin-only.tsx); the server refuses anyone else as well.
 */
export function BookForParentPage() {
  const { eventId = '' } = useParams();
  return (
    <>
      <PageHeading title="Book for a Parent" />
      <AdminBooking eventId={eventId} />
    </>
  );
}
