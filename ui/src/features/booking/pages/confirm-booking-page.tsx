import { waitingListSentence } from '@agency/domain/workshop/places';
import { useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { Button } from '../../../components/button';
import { formatDateTime } from '../../../lib/format';
import { errorMessage } from '../../../lib/http';
import { type ConfirmedBooking, confirmBooking } from '../api';
import { PublicPage } from '../components/public-page';

/**
 * /book/confirm/{secret}: the link e-mailed to a public booking's address. The booking is
 * confirmed by the button, not by opening the page, so a mail scanner that opens links confirms
 * nothing (docs/limits.md, "Public bookings").
 */
export function ConfirmBookingPage() {
  const { token = '' } = useParams();
  const [state, setState] = useState<
    | { step: 'asking' }
    | { step: 'sending' }
    | { step: 'done'; booking: ConfirmedBooking }
    | { step: 'failed'; message: string }
  >({ step: 'asking' });
  const confirm = async () => {
    setState({ step: 'sending' });
    try {
      setState({ step: 'done', booking: await confirmBooking(token) });
    } catch (error) {
      setState({ step: 'failed', message: errorMessage(error) });
    }
  };
  if (state.step === 'done') {
    const { registration, event } = state.booking;
    const when = `${event.description} on ${formatDateTime(event.dateTime)}`;
    return (
      <PublicPage title="Booking Confirmed">
        <p role="status">
          {registration.status === 'registered'
            ? `Thank you: your booking of ${registration.places} ${registration.places === 1 ? 'place' : 'places'} at ${when} is confirmed. We have sent you an e-mail.`
            : `Thank you. ${waitingListSentence(when, event.placesLeft, registration.places)} We will e-mail you if a place comes free for it.`}
        </p>
        <Link to="/book">See other workshops</Link>
      </PublicPage>
    );
  }
  return (
    <PublicPage title="Confirm Your Booking">
      <p>Confirm the booking you asked for with this e-mail address.</p>
      {state.step === 'failed' ? (
        <p role="alert">
          {state.message} <Link to="/book">Book again</Link>
        </p>
      ) : null}
      <Button type="button" onClick={confirm} disabled={state.step === 'sending'}>
        Confirm Booking
      </Button>
    </PublicPage>
  );
}
