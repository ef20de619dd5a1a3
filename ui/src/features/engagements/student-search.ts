import { matchNames } from '../../lib/name-match';

export { escapeRegExp } from '../../lib/name-match';

type Named = { firstName: string; lastName: string; name?: string };

export const fullName = (student: Named) => student.name || `${student.firstName} ${student.lastName}`;

/** Students whose name matches what was typed (lib/name-match), at most `limit`. */
export const matchStudents = <S extends Named>(students: readonly S[], typed: string, limit = 10): S[] =>
  matchNames(students, typed, fullName, limit);
