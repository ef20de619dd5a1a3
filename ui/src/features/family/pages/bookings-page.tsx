import { placesLeftText, timeSpan } from '@agency/domain/workshop/places';
import { type FormEvent, useState } from 'react';
import { Button } from '../../../components/button';
import { Checkbox } from '../../../components/checkbox';
import { LoadState } from '../../../components/load-state';
import { Panel, SectionHeading } from '../../../components/panel';
import { Select } from '../../../components/select';
import { formatDate, formatDateTime, formatMoney } from '../../../lib/format';
import { errorMessage } from '../../../lib/http';
import { useLoader } from '../../../lib/use-loader';
import { bookAsFamily, fetchBookings, fetchDetails, fetchOpenWorkshops } from '../api';
import { FamilyFrame } from '../components/family-frame';

const STATE_WORDS = { requested: 'Requested', confirmed: 'Confirmed', 'waiting list': 'On the waiting list' } as const;

/**
 * /family/bookings: the family's workshop bookings with their state, and a form that books a
 * workshop for its own children as the family (no address to type, no link to confirm).
 */
export function FamilyBookingsPage() {
  const bookings = useLoader(fetchBookings, 'own');
  const workshops = useLoader(fetchOpenWorkshops, 'open');
  const details = useLoader(fetchDetails, 'own');
  const [eventId, setEventId] = useState('');
  const [childIds, setChildIds] = useState<string[]>([]);
  const [commandId, setCommandId] = useState(() => crypto.randomUUID());
  const [state, setState] = useState<
    { step: 'editing' | 'sending' } | { step: 'done'; message: string } | { step: 'failed'; message: string }
  >({ step: 'editing' });

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setState({ step: 'sending' });
    try {
      const { booking } = await bookAsFamily({ commandId, eventId, childIds });
      setCommandId(crypto.randomUUID());
      setChildIds([]);
      setState({
        step: 'done',
        message: booking.state === 'confirmed' ? 'Booked: your places are confirmed.' : 'Booked on the waiting list.',
      });
      bookings.refresh();
      workshops.refresh();
    } catch (error) {
      setState({ step: 'failed', message: errorMessage(error) });
    }
  };

  return (
    <FamilyFrame title="Workshop Bookings">
      <LoadState state={bookings.state} onRetry={bookings.retry}>
        {({ bookings: all }) =>
          all.length === 0 ? (
            <p>No bookings yet.</p>
          ) : (
            all.map((booking) => (
              <Panel key={`${booking.eventId}-${booking.id}`} aria-label={booking.description}>
                <strong>{booking.description}</strong>
                <p>
                  {formatDateTime(booking.dateTime)}
                  {booking.location ? ` · ${booking.location}` : ''} · {booking.children.join(', ')}
                </p>
                <p>{booking.cancelled ? 'Cancelled by the agency' : STATE_WORDS[booking.state]}</p>
              </Panel>
            ))
          )
        }
      </LoadState>
      <Panel aria-label="Book a workshop">
        <SectionHeading>Book a Workshop</SectionHeading>
        <LoadState state={workshops.state} onRetry={workshops.retry}>
          {({ events }) =>
            events.length === 0 ? (
              <p>No workshops are open for booking just now.</p>
            ) : (
              <form onSubmit={submit} noValidate>
                <Select
                  id="family-workshop"
                  label="Workshop"
                  required
                  value={eventId}
                  onChange={(change) => setEventId(change.target.value)}
                  options={[
                    { value: '', label: 'Choose a workshop' },
                    ...events.map((open) => ({
                      value: open.id,
                      label: `${open.description}, ${formatDate(open.dateTime.slice(0, 10))} ${timeSpan(open.dateTime, open.durationMinutes)}, £${formatMoney(open.price)} a child, ${open.placesLeft > 0 ? placesLeftText(open.placesLeft) : 'waiting list'}`,
                    })),
                  ]}
                />
                <LoadState state={details.state} onRetry={details.retry}>
                  {({ family }) => (
                    <fieldset>
                      <legend>Who is coming</legend>
                      {family.children.map((child) => (
                        <Checkbox
                          key={child.id}
                          id={`family-child-${child.id}`}
                          label={`${child.firstName} ${child.lastName}`}
                          checked={childIds.includes(child.id)}
                          onChange={(change) =>
                            setChildIds(
                              change.target.checked
                                ? [...childIds, child.id]
                                : childIds.filter((id) => id !== child.id),
                            )
                          }
                        />
                      ))}
                    </fieldset>
                  )}
                </LoadState>
                {state.step === 'failed' ? <p role="alert">{state.message}</p> : null}
                {state.step === 'done' ? <p role="status">{state.message}</p> : null}
                <Button type="submit" disabled={state.step === 'sending' || !eventId || childIds.length === 0}>
                  Book
                </Button>
              </form>
            )
          }
        </LoadState>
      </Panel>
    </FamilyFrame>
  );
}
