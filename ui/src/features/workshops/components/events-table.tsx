import { Link, useNavigate } from 'react-router-dom';
import { EmptyRow, Table, TableWrap, Td, Th, Tr } from '../../../components/table';
import { formatDate } from '../../../lib/format';
import type { WorkshopEvent } from '../api';
import { awaitingConfirmationNote } from '../workflow-status';

/** Places held by public bookings not confirmed yet, under the event's name. */
function AwaitingConfirmation({ event }: { event: WorkshopEvent }) {
  const note = awaitingConfirmationNote(event);
  return note ? <div className="cell-note">{note}</div> : null;
}

/**
 * Spec §2: Date, Time, Description, Registrations, Not Invoiced, Unpaid; a row opens its
 * registrations. Places held by public bookings awaiting confirmation are noted under the name.
 */
export function EventsTable({ events }: { events: WorkshopEvent[] }) {
  const navigate = useNavigate();
  return (
    <TableWrap>
      <Table>
        <caption className="visually-hidden">Workshop events</caption>
        <thead>
          <tr>
            <Th scope="col">Date</Th>
            <Th scope="col">Time</Th>
            <Th scope="col">Description</Th>
            <Th scope="col">Registrations</Th>
            <Th scope="col">Places Left</Th>
            <Th scope="col">Not Invoiced</Th>
            <Th scope="col">Unpaid</Th>
          </tr>
        </thead>
        <tbody>
          {events.length === 0 ? (
            <tr>
              <EmptyRow colSpan={7}>No workshops</EmptyRow>
            </tr>
          ) : (
            events.map((event) => (
              <Tr key={event.id} clickable onClick={() => navigate(`/workshops/${event.id}`)}>
                <Td nowrap>{formatDate(event.dateTime.slice(0, 10))}</Td>
                <Td nowrap>{event.dateTime.slice(11, 16)}</Td>
                <Td>
                  <Link to={`/workshops/${event.id}`}>{event.description}</Link>
                  {event.cancelled ? ' (cancelled)' : ''}
                  <AwaitingConfirmation event={event} />
                </Td>
                <Td numeric>
                  {event.count}
                  {event.waitlisted > 0 ? ` + ${event.waitlisted} waiting` : ''}
                </Td>
                <Td numeric>{event.placesLeft}</Td>
                <Td numeric>{event.unInvoiced}</Td>
                <Td numeric>{event.unpaid}</Td>
              </Tr>
            ))
          )}
        </tbody>
      </Table>
    </TableWrap>
  );
}
