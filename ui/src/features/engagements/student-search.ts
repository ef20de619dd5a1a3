/** The user's text as a literal inside a regular expression: `(` or `*` match themselves. */
export const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

type Named = { firstName: string; lastName: string; name?: string };

export const fullName = (student: Named) => student.name || `${student.firstName} ${student.lastName}`;

/**
 * Students whose name matches what was typed: every word, in any order, case-insensitively,
 * at the start of a word of the name (so "am arc" finds Amy Archer). At most `limit` answers.
 */
export function matchStudents<S extends Named>(students: readonly S[], typed: string, limit = 10): S[] {
  const words = typed.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return [];
  const patterns = words.map((word) => new RegExp(`(^|[\\s'-])${escapeRegExp(word)}`, 'i'));
  return students.filter((student) => patterns.every((pattern) => pattern.test(fullName(student)))).slice(0, limit);
}
