import { LIMITS } from '@agency/contracts';
import { useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { BookingForm, bookingOf, useBookingForm } from '../../../components/booking-form';
import { formatDateTime } from '../../../lib/format';
import { useLoader } from '../../../lib/use-loader';
import { book, fetchOpenEvents } from '../api';
import { PublicPage } from '../components/public-page';

const loadOpenEvents = (_: 'open', signal: AbortSignal) => fetchOpenEvents(signal);

/** /book/{eventId}: a parent's booking, with the contact form's rules. No login. */
export function BookEventPage() {
  const { eventId = '' } = useParams();
  const events = useLoader(loadOpenEvents, 'open');
  const event = events.state.data?.find((e) => e.id === eventId);
  const [booked, setBooked] = useState<{ held: boolean; email: string } | null>(null);
  const booking = useBookingForm(async (values, commandId) => {
    const details = bookingOf(values);
    const registration = await book(eventId, { commandId, ...details, website: values.website });
    setBooked({ held: registration.held, email: details.contact.email });
  });
  const title = event ? `Book: ${event.description}` : 'Book a Workshop';
  if (booked) {
    return (
      <PublicPage title={title}>
        <p role="status">
          {booked.held
            ? `Almost done: we have e-mailed a link to ${booked.email}. Open it within ${LIMITS.bookingHoldMinutes} minutes to confirm your booking; the places are held for you until then.`
            : `The workshop is full. We have e-mailed a link to ${booked.email}: open it within ${LIMITS.bookingHoldMinutes} minutes to join the waiting list.`}
        </p>
        <Link to="/book">See other workshops</Link>
      </PublicPage>
    );
  }
  return (
    <PublicPage title={title}>
      {event ? (
        <p>
          {formatDateTime(event.dateTime)}
          {event.location ? ` · ${event.location}` : ''} ·{' '}
          {event.placesLeft > 0 ? `${event.placesLeft} places left` : 'Full: you will be on the waiting list'}
        </p>
      ) : null}
      <BookingForm booking={booking} forParent={false} onCancel={() => window.history.back()} />
    </PublicPage>
  );
}
