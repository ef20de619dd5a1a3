import { placesLeftText, timeSpan } from '@agency/domain/workshop/places';
import { Link } from 'react-router-dom';
import { LoadState } from '../../../components/load-state';
import { Panel } from '../../../components/panel';
import { formatDate, formatMoney } from '../../../lib/format';
import { useLoader } from '../../../lib/use-loader';
import { fetchOpenEvents } from '../api';
import { PublicPage } from '../components/public-page';

const loadOpenEvents = (_: 'open', signal: AbortSignal) => fetchOpenEvents(signal);

/** /book: the agency's upcoming workshops with the places left, each opening its booking form. No login. */
export function BookPage() {
  const { state, retry } = useLoader(loadOpenEvents, 'open');
  return (
    <PublicPage title="Book a Workshop" agency={state.data?.agency.name}>
      <LoadState state={state} onRetry={retry}>
        {({ events }) =>
          events.length === 0 ? (
            <p>No workshops are open for booking just now.</p>
          ) : (
            events.map((event) => (
              <Panel key={event.id} aria-label={event.description}>
                <h2>
                  <Link to={`/book/${event.id}`}>{event.description}</Link>
                </h2>
                <p>
                  {formatDate(event.dateTime.slice(0, 10))}, {timeSpan(event.dateTime, event.durationMinutes)} · £
                  {formatMoney(event.price)} a child{event.location ? ` · ${event.location}` : ''}
                </p>
                <p>
                  {event.placesLeft > 0 ? placesLeftText(event.placesLeft) : 'Full: bookings go on the waiting list'}
                </p>
              </Panel>
            ))
          )
        }
      </LoadState>
    </PublicPage>
  );
}
