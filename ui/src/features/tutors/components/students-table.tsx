import { Link } from 'react-router-dom';
import { EmptyRow, Table, TableWrap, Td, Th, Tr } from '../../../components/table';
import { formatDate, formatMoney } from '../../../lib/format';
import type { TutorStudent } from '../api';

/** A tutor's current or former students with their terms; a row opens the engagement. */
export function StudentsTable({
  tutorId,
  students,
  empty,
  ended = false,
  onOpen,
}: {
  tutorId: string;
  students: TutorStudent[];
  empty: string;
  /** Former students: show when each engagement ended. */
  ended?: boolean;
  onOpen: (engagementId: string) => void;
}) {
  const columns = ended ? 5 : 4;
  return (
    <TableWrap>
      <Table>
        <thead>
          <tr>
            <Th scope="col">Student</Th>
            <Th scope="col">Start Date</Th>
            {ended ? <Th scope="col">End Date</Th> : null}
            <Th scope="col">Rate</Th>
            <Th scope="col">Subjects</Th>
          </tr>
        </thead>
        <tbody>
          {students.length === 0 ? (
            <tr>
              <EmptyRow colSpan={columns}>{empty}</EmptyRow>
            </tr>
          ) : (
            students.map((student) => (
              <Tr key={student.engagementId} clickable onClick={() => onOpen(student.engagementId)}>
                <Td>
                  <Link
                    to={`/engagement/detail/${tutorId}/${student.engagementId}`}
                    onClick={(event) => event.stopPropagation()}
                  >
                    {student.name || 'Student'}
                  </Link>
                </Td>
                <Td nowrap>{formatDate(student.startDate)}</Td>
                {ended ? <Td nowrap>{formatDate(student.endDate)}</Td> : null}
                <Td numeric>{student.rate === null ? '' : `£${formatMoney(student.rate)}`}</Td>
                <Td>{student.subjects.join(', ')}</Td>
              </Tr>
            ))
          )}
        </tbody>
      </Table>
    </TableWrap>
  );
}
