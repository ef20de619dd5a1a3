/** The user's text as a literal inside a regular expression: `(` or `*` match themselves. */
export const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The items whose name (`nameOf`) matches what was typed: every word, in any order,
 * case-insensitively, at the start of a word of the name (so "am arc" finds Amy Archer).
 * At most `limit` answers.
 */
export function matchNames<T>(items: readonly T[], typed: string, nameOf: (item: T) => string, limit = 10): T[] {
  const words = typed.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return [];
  const patterns = words.map((word) => new RegExp(`(^|[\\s'-])${escapeRegExp(word)}`, 'i'));
  return items.filter((item) => patterns.every((pattern) => pattern.test(nameOf(item)))).slice(0, limit);
}
