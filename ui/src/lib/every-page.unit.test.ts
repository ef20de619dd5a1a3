import { describe, expect, it } from 'vitest';
import { everyPage, type Page } from './every-page';

/** A paged list of `total` numbers, `size` a page, with opaque cursors as the server gives them. */
const pagedList = (total: number, size: number) => {
  const asked: (string | null)[] = [];
  const fetchPage = async (cursor: string | null): Promise<Page<number>> => {
    asked.push(cursor);
    const from = cursor === null ? 0 : Number(atob(cursor));
    const rows = Array.from({ length: Math.max(Math.min(size, total - from), 0) }, (_, i) => from + i);
    const next = from + size;
    return { rows, nextCursor: next < total ? btoa(String(next)) : null };
  };
  return { fetchPage, asked };
};

describe('every page of a paged list', () => {
  it('walks the cursors to the last page and gives every row once, in order', async () => {
    const list = pagedList(2503, 1000);
    expect(await everyPage(list.fetchPage)).toEqual(Array.from({ length: 2503 }, (_, i) => i));
    expect(list.asked).toHaveLength(3);
    expect(list.asked[0]).toBeNull();
  });

  it('asks once for a list that fits one page, and gives an empty list as empty', async () => {
    const short = pagedList(7, 1000);
    expect(await everyPage(short.fetchPage)).toHaveLength(7);
    expect(short.asked).toEqual([null]);
    expect(await everyPage(pagedList(0, 1000).fetchPage)).toEqual([]);
  });

  it('refuses a server that answers the same cursor again instead of looping for ever', async () => {
    await expect(everyPage(async () => ({ rows: [1], nextCursor: 'again' }))).rejects.toThrow(/answered before/);
  });
});
