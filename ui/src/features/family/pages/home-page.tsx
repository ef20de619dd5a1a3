import { Link } from 'react-router-dom';
import { LoadState } from '../../../components/load-state';
import { Panel, SectionHeading } from '../../../components/panel';
import { formatDateTime, formatMoney } from '../../../lib/format';
import { useLoader } from '../../../lib/use-loader';
import { fetchBookings, fetchDetails, fetchOverview } from '../api';
import { FamilyFrame } from '../components/family-frame';

/** /family/home: the family's children, what it owes, and its upcoming bookings. */
export function FamilyHomePage() {
  const details = useLoader(fetchDetails, 'own');
  const overview = useLoader(fetchOverview, 'own');
  const bookings = useLoader(fetchBookings, 'own');
  const now = new Date().toISOString().slice(0, 16);
  return (
    <FamilyFrame title="Your Family">
      <Panel aria-label="Children">
        <SectionHeading>Children</SectionHeading>
        <LoadState state={details.state} onRetry={details.retry}>
          {({ family }) =>
            family.children.length === 0 ? (
              <p>No children are recorded yet.</p>
            ) : (
              <ul>
                {family.children.map((child) => (
                  <li key={child.id}>
                    {child.firstName} {child.lastName}
                  </li>
                ))}
              </ul>
            )
          }
        </LoadState>
      </Panel>
      <Panel aria-label="Money">
        <SectionHeading>Invoices</SectionHeading>
        <LoadState state={overview.state} onRetry={overview.retry}>
          {({ owed, invoiceCount }) => (
            <p>
              {owed > 0 ? `You owe £${formatMoney(owed)}.` : 'Nothing is owed.'}{' '}
              <Link to="/family/invoices">
                {invoiceCount} {invoiceCount === 1 ? 'invoice' : 'invoices'}
              </Link>
            </p>
          )}
        </LoadState>
      </Panel>
      <Panel aria-label="Upcoming bookings">
        <SectionHeading>Upcoming Bookings</SectionHeading>
        <LoadState state={bookings.state} onRetry={bookings.retry}>
          {({ bookings: all }) => {
            const upcoming = all.filter((booking) => booking.dateTime >= now && !booking.cancelled);
            return upcoming.length === 0 ? (
              <p>
                No upcoming workshops. <Link to="/family/bookings">Book one</Link>
              </p>
            ) : (
              <ul>
                {upcoming.map((booking) => (
                  <li key={`${booking.eventId}-${booking.id}`}>
                    {booking.description}, {formatDateTime(booking.dateTime)}: {booking.state}
                  </li>
                ))}
              </ul>
            );
          }}
        </LoadState>
      </Panel>
    </FamilyFrame>
  );
}
