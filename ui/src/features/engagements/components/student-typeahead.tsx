import { Typeahead } from '../../../components/typeahead';
import { formatDate } from '../../../lib/format';
import { useLoader } from '../../../lib/use-loader';
import { fetchStudents, type Student } from '../api';
import { fullName, matchStudents } from '../student-search';

const loadStudents = (_: 'all', signal: AbortSignal) => fetchStudents(signal);
const matchTyped = (students: readonly Student[], typed: string) => matchStudents(students, typed);
const born = (student: Student) => (student.dob ? <small>born {formatDate(student.dob)}</small> : null);

/**
 * Find Student: a combobox over every child (GET /api/clients/all/children). What is typed is
 * matched literally (regex-safe) once typing pauses for 200 ms.
 */
export function StudentTypeahead(props: {
  id: string;
  label: string;
  error?: string;
  selected: Student | null;
  onSelect: (student: Student | null) => void;
  onBlur?: () => void;
}) {
  const { state, retry } = useLoader(loadStudents, 'all');
  return (
    <Typeahead
      {...props}
      noun="students"
      placeholder="Type a student's name"
      state={state}
      retry={retry}
      match={matchTyped}
      textOf={fullName}
      noteOf={born}
    />
  );
}
