import { Link } from 'react-router-dom';
import { EmptyRow, Table, TableWrap, Td, Th, Tr } from '../../../components/table';
import type { TutorStudent } from '../api';

/** A tutor's current or former students; a row opens the engagement. */
export function StudentsTable({
  tutorId,
  students,
  empty,
  onOpen,
}: {
  tutorId: string;
  students: TutorStudent[];
  empty: string;
  onOpen: (engagementId: string) => void;
}) {
  return (
    <TableWrap>
      <Table>
        <thead>
          <tr>
            <Th scope="col">Student</Th>
          </tr>
        </thead>
        <tbody>
          {students.length === 0 ? (
            <tr>
              <EmptyRow>{empty}</EmptyRow>
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
              </Tr>
            ))
          )}
        </tbody>
      </Table>
    </TableWrap>
  );
}
