import { LIMITS } from '@agency/contracts';
import { bookingOutlook, placesLeftText, timeSpan } from '@agency/domain/workshop/places';
import styled from '@emotion/styled';
import { useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { BookingForm, bookingOf, useBookingForm } from '../../../components/booking-form';
import { LoadState } from '../../../components/load-state';
import { formatColumnDate, formatMoney } from '../../../lib/format';
import { useLoader } from '../../../lib/use-loader';
import { book, fetchOpenEvents, type OpenEvent, type RequestedBooking } from '../api';
import { allergiesPrivacy, PrivacyNotice } from '../components/privacy-notice';
import { PublicPage } from '../components/public-page';

const loadOpenEvents = (_: 'open', signal: AbortSignal) => fetchOpenEvents(signal);

const Facts = styled.dl({
  display: 'grid',
  gridTemplateColumns: 'max-content 1fr',
  gap: '0.35rem 1rem',
  margin: '0 0 1.5rem',
  '& dt': { fontWeight: 600 },
  '& dd': { margin: 0, overflowWrap: 'anywhere' },
});

/** The event as a parent needs it before booking: what, when (start to end), where, the price, the places. */
function EventDetails({ event }: { event: OpenEvent }) {
  return (
    <section aria-label="The workshop">
      <Facts>
        <dt>Workshop</dt>
        <dd>{event.description}</dd>
        <dt>Date</dt>
        <dd>{formatColumnDate(event.dateTime.slice(0, 10))}</dd>
        <dt>Time</dt>
        <dd>
          {timeSpan(event.dateTime, event.durationMinutes)} ({event.durationMinutes} minutes)
        </dd>
        {event.location ? (
          <>
            <dt>Where</dt>
            <dd>{event.location}</dd>
          </>
        ) : null}
        <dt>Price</dt>
        <dd>£{formatMoney(event.price)} a child</dd>
        <dt>Places</dt>
        <dd>{event.placesLeft > 0 ? placesLeftText(event.placesLeft) : 'Full: bookings go on the waiting list'}</dd>
      </Facts>
    </section>
  );
}

/** What a request came to: its places held until the e-mailed link confirms it, or the waiting list, and why. */
function requestedText(booked: RequestedBooking & { email: string }) {
  const link = `e-mailed a link to ${booked.email}`;
  if (booked.held) {
    return `Almost done: we have ${link}. Open it within ${LIMITS.bookingHoldMinutes} minutes to confirm your booking; the places are held for you until then.`;
  }
  const why = bookingOutlook(booked.placesLeft ?? 0, booked.places ?? 1).text;
  return `${why} We have ${link}: open it within ${LIMITS.bookingHoldMinutes} minutes to join the waiting list.`;
}

/** /book/{eventId}: a parent's booking, with the contact form's rules, under the agency's name. No login. */
export function BookEventPage() {
  const { eventId = '' } = useParams();
  const open = useLoader(loadOpenEvents, 'open');
  const agency = open.state.data?.agency;
  const event = open.state.data?.events.find((e) => e.id === eventId);
  const [booked, setBooked] = useState<(RequestedBooking & { email: string }) | null>(null);
  const booking = useBookingForm(async (values, commandId) => {
    const details = bookingOf(values);
    const registration = await book(eventId, { commandId, ...details, website: values.website });
    setBooked({ ...registration, email: details.contact.email });
  });
  const title = event ? `Book: ${event.description}` : 'Book a Workshop';
  if (booked) {
    return (
      <PublicPage title={title} agency={agency?.name}>
        <p role="status">{requestedText(booked)}</p>
        <Link to="/book">See other workshops</Link>
      </PublicPage>
    );
  }
  return (
    <PublicPage title={title} agency={agency?.name}>
      <LoadState state={open.state} onRetry={open.retry}>
        {({ agency: runBy }) =>
          event ? (
            <>
              <EventDetails event={event} />
              <BookingForm
                booking={booking}
                forParent={false}
                placesLeft={event.placesLeft}
                privacy={{ allergies: allergiesPrivacy, notice: <PrivacyNotice agency={runBy} /> }}
                onCancel={() => window.history.back()}
              />
            </>
          ) : (
            <p>
              This workshop is not open for booking: it may have started or been cancelled.{' '}
              <Link to="/book">See the workshops open for booking</Link>
            </p>
          )
        }
      </LoadState>
    </PublicPage>
  );
}
