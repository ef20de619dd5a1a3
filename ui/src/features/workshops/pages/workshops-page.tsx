import { useState } from 'react';
import { ButtonLink } from '../../../components/button';
import { Checkbox } from '../../../components/checkbox';
import { LoadState } from '../../../components/load-state';
import { PageHeading } from '../../../components/page-heading';
import { useCurrentUser } from '../../../lib/current-user';
import { useLoader } from '../../../lib/use-loader';
import { fetchEvents } from '../api';
import { EventsTable } from '../components/events-table';

const loadEvents = (includePast: boolean, signal: AbortSignal) => fetchEvents(includePast, signal);

/** workshops: upcoming events (all with Include Past Events), each opening its registrations. */
export function WorkshopsPage() {
  const [includePast, setIncludePast] = useState(false);
  const { state, retry } = useLoader(loadEvents, includePast);
  const admin = useCurrentUser().role === 'admin';
  return (
    <>
      <PageHeading title="Workshops">
        {admin ? <ButtonLink to="/workshops/new">New Event</ButtonLink> : null}
        <ButtonLink to="/reports/workshops" variant="secondary">
          Workshops Report
        </ButtonLink>
      </PageHeading>
      <Checkbox
        id="includePast"
        label="Include Past Events"
        checked={includePast}
        onChange={(event) => setIncludePast(event.target.checked)}
      />
      <LoadState state={state} onRetry={retry}>
        {(events) => <EventsTable events={events} />}
      </LoadState>
    </>
  );
}
