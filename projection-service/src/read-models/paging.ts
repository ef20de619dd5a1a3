import { HttpError } from '@agency/platform';

/**
 * A paged list's cursor: the last row shown, as the few values a list needs to find its place
 * again by an index (a date, an id; never a name), base64url-encoded so clients treat it as opaque.
 */
export const encodeCursor = (parts: string[]) => Buffer.from(JSON.stringify(parts)).toString('base64url');

const badCursor = () =>
  new HttpError(400, 'invalid_input', 'Not a cursor of this list: ask for the first page again.', {
    cursor: 'Not a cursor of this list',
  });

/** The `arity` strings a cursor of `encodeCursor` holds (passing `valid`), or a 400 when it is anything else. */
export function decodeCursor(
  cursor: string,
  arity: number,
  valid: (parts: string[]) => boolean = () => true,
): string[] {
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw badCursor();
  }
  if (!Array.isArray(parts) || parts.length !== arity || !parts.every((part) => typeof part === 'string')) {
    throw badCursor();
  }
  if (!valid(parts)) throw badCursor();
  return parts;
}

/** The row a cursor named has left the list (removed, or the list is another one): start again. */
export const listChanged = () =>
  new HttpError(409, 'list_changed', 'This list has changed since its last page: reload it.', {
    cursor: 'No longer in this list',
  });
