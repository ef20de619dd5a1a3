import styled from '@emotion/styled';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { Button } from '../../../components/button';
import { Checkbox } from '../../../components/checkbox';
import { LoadState } from '../../../components/load-state';
import { PageHeading } from '../../../components/page-heading';
import { EmptyRow, Table, TableWrap, Td, Th, Tr } from '../../../components/table';
import { useCurrentUser } from '../../../lib/current-user';
import { useLoader } from '../../../lib/use-loader';
import { fetchTutors } from '../api';

const Filters = styled.div({ marginBottom: '1rem' });
const Inactive = styled.span(({ theme }) => ({ marginLeft: '0.5rem', color: theme.colors.muted, fontSize: '0.85rem' }));

const loadTutors = (includeInactive: boolean, signal: AbortSignal) => fetchTutors(includeInactive, signal);

/** tutors: admins and partners. */
export function TutorsPage() {
  const user = useCurrentUser();
  const navigate = useNavigate();
  const [includeInactive, setIncludeInactive] = useState(false);
  const { state, retry } = useLoader(loadTutors, includeInactive);
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
      </Filters>
      <LoadState state={state} onRetry={retry}>
        {(tutors) => (
          <TableWrap>
            <Table>
              <thead>
                <tr>
                  <Th scope="col">Name</Th>
                  <Th scope="col">Address</Th>
                  <Th scope="col">Phone</Th>
                  <Th scope="col">Email</Th>
                </tr>
              </thead>
              <tbody>
                {tutors.length === 0 ? (
                  <tr>
                    <EmptyRow colSpan={4}>No tutors to show.</EmptyRow>
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
