import styled from '@emotion/styled';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { Button } from '../../../components/button';
import { Checkbox } from '../../../components/checkbox';
import { PersonHeaders, SearchField, useListQuery } from '../../../components/list-controls';
import { LoadState } from '../../../components/load-state';
import { PageHeading } from '../../../components/page-heading';
import { EmptyRow, Table, TableWrap, Td, Tr } from '../../../components/table';
import { useCurrentUser } from '../../../lib/current-user';
import { useLoader } from '../../../lib/use-loader';
import { fetchTutors, TUTOR_SORTS, type TutorsQuery } from '../api';

const Filters = styled.div({
  display: 'flex',
  flexWrap: 'wrap',
  alignItems: 'flex-end',
  gap: '1.5rem',
  marginBottom: '1rem',
  '& > div': { marginBottom: 0 },
});
const SearchWrap = styled.div({ minWidth: '16rem' });
const Inactive = styled.span(({ theme }) => ({ marginLeft: '0.5rem', color: theme.colors.muted, fontSize: '0.85rem' }));

const loadTutors = (query: TutorsQuery, signal: AbortSignal) => fetchTutors(query, signal);

/** tutors: admins and partners; searched by name and sorted by Name or Email (the address keeps both). */
export function TutorsPage() {
  const user = useCurrentUser();
  const navigate = useNavigate();
  const [includeInactive, setIncludeInactive] = useState(false);
  const list = useListQuery(TUTOR_SORTS, { sort: 'name', order: 'asc' });
  const { q, sort, order } = list.query;
  const { state, retry } = useLoader(loadTutors, { includeInactive, q: q || undefined, sort, order });
  return (
    <>
      <PageHeading title="Tutors">
        {user.role === 'admin' ? (
          <Button type="button" onClick={() => navigate('/tutor/new')}>
            New Tutor
          </Button>
        ) : null}
      </PageHeading>
      <Filters>
        <Checkbox
          id="include-inactive"
          label="Include Inactive"
          checked={includeInactive}
          onChange={(event) => setIncludeInactive(event.target.checked)}
        />
        <SearchWrap>
          <SearchField id="tutor-search" label="Search by name" value={q} onSearch={list.search} />
        </SearchWrap>
      </Filters>
      <LoadState state={state} onRetry={retry}>
        {(tutors) => (
          <TableWrap>
            <Table>
              <thead>
                <tr>
                  <PersonHeaders sorted={list.sorted} onSort={list.sortBy} />
                </tr>
              </thead>
              <tbody>
                {tutors.length === 0 ? (
                  <tr>
                    <EmptyRow colSpan={4}>{q ? 'No tutors of that name.' : 'No tutors to show.'}</EmptyRow>
                  </tr>
                ) : (
                  tutors.map((tutor) => (
                    <Tr key={tutor.id} clickable onClick={() => navigate(`/tutor/${tutor.id}`)}>
                      <Td>
                        <Link to={`/tutor/${tutor.id}`} onClick={(event) => event.stopPropagation()}>
                          {tutor.name}
                        </Link>
                        {tutor.active ? null : <Inactive>(inactive)</Inactive>}
                      </Td>
                      <Td>{tutor.address}</Td>
                      <Td>{tutor.phone}</Td>
                      <Td>{tutor.email}</Td>
                    </Tr>
                  ))
                )}
              </tbody>
            </Table>
          </TableWrap>
        )}
      </LoadState>
    </>
  );
}
