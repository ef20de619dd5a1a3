/**
 * The lists' search by name (`q`): each word of the search is the start of the first or the last
 * name of one person ("pat ad" finds Pat Adams, "ad" finds Pat Adams and Adam Smith), case aside.
 *
 * Index-friendly: the first word is matched as `lower(name) like 'word%'`, which the
 * `lower(…) text_pattern_ops` indexes of the names answer by a range scan (the parameters are
 * planned with their values: node-postgres sends unnamed statements); the other words only filter
 * the people found so.
 */
export type NameSearch = { first: string; all: string[] };

/** LIKE's own characters in a word are matched as themselves (the default escape is `\`). */
const literal = (word: string) => word.replace(/[\\%_]/g, (character) => `\\${character}`);

/** The search's LIKE patterns, or null for no search. */
export function nameSearchOf(q: string | undefined): NameSearch | null {
  const words = (q ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  const [first] = words;
  if (first === undefined) return null;
  const all = words.map((word) => `${literal(word)}%`);
  return { first: `${literal(first)}%`, all };
}

/**
 * The condition that a person (columns `firstName`, `lastName`) has the name searched, with the
 * first pattern in parameter `$first` and all of them (a text[]) in `$all`; true when both are null.
 */
export const nameMatches = (firstName: string, lastName: string, first: string, all: string) =>
  `(${first}::text is null or ((lower(${firstName}) like ${first} or lower(${lastName}) like ${first})
     and not exists (select 1 from unnest(${all}::text[]) word
                      where not (lower(${firstName}) like word or lower(${lastName}) like word))))`;

/** The two parameters of `nameMatches`. */
export const nameSearchParams = (search: NameSearch | null): [string | null, string[] | null] =>
  search ? [search.first, search.all] : [null, null];
