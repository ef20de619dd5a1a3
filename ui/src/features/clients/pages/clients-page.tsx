import styled from '@emotion/styled';
import { useCallback, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { Button } from '../../../components/button';
import { Checkbox } from '../../../components/checkbox';
import { SearchField, useListQuery } from '../../../components/list-controls';
import { LoadState } from '../../../components/load-state';
import { PageHeading } from '../../../components/page-heading';
import { Pager, useCursorPages } from '../../../components/pager';
import { Select } from '../../../components/select';
import { isOffice, useCurrentUser } from '../../../lib/current-user';
import { useLoader } from '../../../lib/use-loader';
import { CLIENT_SORTS, type ClientsQuery, fetchClients, fetchTutors } from '../api';
import { ClientsTable } from '../components/clients-table';

const Filters = styled.div({
  display: 'flex',
  flexWrap: 'wrap',
  alignItems: 'flex-end',
  gap: '1.5rem',
  marginBottom: '1rem',
  '& > div': { marginBottom: 0 },
});

const SelectWrap = styled.div({ minWidth: '16rem' });

const loadClients = (query: ClientsQuery, signal: AbortSignal) => fetchClients(query, signal);
const loadTutors = (staff: boolean, signal: AbortSignal) => (staff ? fetchTutors(signal) : Promise.resolve([]));

export function ClientsPage() {
  const user = useCurrentUser();
  const navigate = useNavigate();
  const staff = isOffice(user);
  const [includeInactive, setIncludeInactive] = useState(false);
  const [tutor, setTutor] = useState('');
  const list = useListQuery(CLIENT_SORTS, { sort: 'name', order: 'asc' });
  const { q, sort, order } = list.query;

  const filters = {
    includeInactive,
    tutor: staff ? tutor || undefined : user.tutorId,
    q: q || undefined,
    sort,
    order: sort ? order : undefined,
  };
  const pages = useCursorPages(filters);
  const clients = useLoader(loadClients, { ...filters, cursor: pages.cursor });
  const tutors = useLoader(loadTutors, staff);
  const openClient = useCallback((id: string) => navigate(`/client/${id}`), [navigate]);
  const tutorOptions = [
    { value: '', label: 'All tutors' },
    ...(tutors.state.data ?? []).map((option) => ({ value: option.id, label: option.name })),
  ];

  const showInactive = (
    <Checkbox
      id="show-inactive"
      label="Show Inactive?"
      checked={includeInactive}
      onChange={(event) => setIncludeInactive(event.target.checked)}
    />
  );

  return (
    <>
      <PageHeading title="Clients">
        {user.role === 'admin' ? (
          <Button type="button" onClick={() => navigate('/client/new')}>
            New Client
          </Button>
        ) : null}
      </PageHeading>
      <Filters>
        {staff ? (
          <SelectWrap>
            <Select
              id="tutor"
              label="Tutor"
              value={tutor}
              options={tutorOptions}
              onChange={(event) => setTutor(event.target.value)}
            />
          </SelectWrap>
        ) : null}
        {showInactive}
        <SelectWrap>
          <SearchField id="client-search" label="Search by name" value={q} onSearch={list.search} />
        </SelectWrap>
      </Filters>
      <LoadState state={clients.state} onRetry={clients.retry}>
        {(answer) => (
          <>
            <ClientsTable
              clients={answer.clients}
              onOpen={staff ? openClient : undefined}
              sort={list.sorted.sort}
              order={list.sorted.order}
              onSort={list.sortBy}
              searched={q !== ''}
            />
            <Pager paging={pages.paging(answer, answer.clients.length)} label="Clients" />
          </>
        )}
      </LoadState>
    </>
  );
}
