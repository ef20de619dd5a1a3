/** One page of a paged list (`GET /api/clients`, `GET /api/lessons`): its rows and the next page's cursor. */
export type Page<T> = { rows: T[]; nextCursor: string | null };

/**
 * Every row of a paged list, in order: asks for the first page, then each `nextCursor` until the
 * last page (for pickers that must offer the whole list, not its first page). A cursor seen
 * twice is a server fault, refused rather than looped on.
 */
export async function everyPage<T>(fetchPage: (cursor: string | null) => Promise<Page<T>>): Promise<T[]> {
  const rows: T[] = [];
  const seen = new Set<string>();
  let cursor: string | null = null;
  do {
    const page: Page<T> = await fetchPage(cursor);
    rows.push(...page.rows);
    cursor = page.nextCursor;
    if (cursor !== null) {
      if (seen.has(cursor)) throw new Error('The list answered a page it had answered before');
      seen.add(cursor);
    }
  } while (cursor !== null);
  return rows;
}
