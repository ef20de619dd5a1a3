import styled from '@emotion/styled';
import { type ComponentPropsWithoutRef, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { Th } from './table';
import { TextField } from './text-field';

/** Spec §9: typing settles for 200 ms before it is searched. */
export const SEARCH_DEBOUNCE_MS = 200;

export type SortOrder = 'asc' | 'desc';

/** A list's search and order as its address holds them (`?q&sort&order`): kept by a reload and by Back. */
export type ListQuery<C extends string> = { q: string; sort?: C; order?: SortOrder };

/**
 * The search and the order of a list, read from and written to the address (replacing the entry,
 * so typing does not fill the history). `columns` are the ones the list's query sorts by; another
 * `sort` in the address is ignored. The setters keep their identity from draw to draw, so a
 * memoised table is not drawn again for them.
 */
export function useListQuery<C extends string>(
  columns: readonly C[],
  /** The order the list is in when none is asked for (the query's own). */
  initial: { sort: C; order: SortOrder },
) {
  const [params, setParams] = useSearchParams();
  const sort = columns.find((column) => column === params.get('sort'));
  /** What the address asks for: the list's query sends only this. */
  const query: ListQuery<C> = {
    q: params.get('q') ?? '',
    sort,
    order: sort ? (params.get('order') === 'desc' ? 'desc' : 'asc') : undefined,
  };
  /** The order the list is in, as its headers show it. */
  const sorted: { sort: C; order: SortOrder } = sort ? { sort, order: query.order ?? 'asc' } : initial;
  const latest = useRef({ sorted, setParams });
  useLayoutEffect(() => {
    latest.current = { sorted, setParams };
  });
  const setters = useMemo(() => {
    const set = (changes: Record<string, string | undefined>) =>
      latest.current.setParams(
        (before) => {
          const next = new URLSearchParams(before);
          for (const [name, value] of Object.entries(changes)) {
            if (value) next.set(name, value);
            else next.delete(name);
          }
          return next;
        },
        { replace: true },
      );
    return {
      /** Another filter kept in the address (`undefined` or '' removes it). */
      setParam: (name: string, value: string | undefined) => set({ [name]: value }),
      search: (q: string) => set({ q: q.trim() || undefined }),
      /** A column's header chosen: by it ascending, or the other way when the list already is in its order. */
      sortBy: (column: C) => {
        const { sort: now, order } = latest.current.sorted;
        set({ sort: column, order: now === column && order === 'asc' ? 'desc' : 'asc' });
      },
    };
  }, []);
  return { query, sorted, params, ...setters };
}

/**
 * A search box that searches once typing settles (`SEARCH_DEBOUNCE_MS`), and at once on Enter.
 * Its value follows `value` when that changes from outside (Back, a link).
 */
export function SearchField({
  id,
  label,
  value,
  onSearch,
}: {
  id: string;
  label: string;
  value: string;
  onSearch: (q: string) => void;
}) {
  const [text, setText] = useState(value);
  const [last, setLast] = useState(value);
  if (value !== last) {
    setLast(value);
    setText(value);
  }
  // The latest callback, without restarting the wait each time the page draws again.
  const search = useRef(onSearch);
  useLayoutEffect(() => {
    search.current = onSearch;
  });
  useEffect(() => {
    if (text.trim() === value.trim()) return;
    const timer = setTimeout(() => search.current(text), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [text, value]);
  return (
    <TextField
      id={id}
      label={label}
      type="search"
      autoComplete="off"
      value={text}
      onChange={(event) => setText(event.target.value)}
      onKeyDown={(event) => {
        if (event.key === 'Enter') onSearch(text);
      }}
    />
  );
}

const SortButton = styled.button(({ theme }) => ({
  background: 'none',
  border: 0,
  padding: 0,
  font: 'inherit',
  color: 'inherit',
  textTransform: 'inherit',
  letterSpacing: 'inherit',
  display: 'inline-flex',
  alignItems: 'center',
  gap: '0.3rem',
  cursor: 'pointer',
  '&:hover': { color: theme.colors.text },
  '&:focus-visible': { outline: `3px solid ${theme.colors.focus}`, outlineOffset: 2 },
}));

/**
 * A column header that sorts its list: a button (its column's label) with the order it is in,
 * `aria-sort` on the header. `data-label` names the column for the phone's cards.
 */
export function SortHeader<C extends string>({
  column,
  label,
  sorted,
  onSort,
  ...th
}: ComponentPropsWithoutRef<'th'> & {
  column: C;
  label: string;
  /** The list's order now. */
  sorted: Pick<ListQuery<C>, 'sort' | 'order'>;
  onSort: (column: C) => void;
}) {
  const order = sorted.sort === column ? sorted.order : undefined;
  return (
    <Th
      scope="col"
      data-label={label}
      aria-sort={order === 'asc' ? 'ascending' : order === 'desc' ? 'descending' : 'none'}
      {...th}
    >
      <SortButton type="button" onClick={() => onSort(column)}>
        {label}
        <span aria-hidden="true">{order === 'asc' ? '▲' : order === 'desc' ? '▼' : '↕'}</span>
      </SortButton>
    </Th>
  );
}

/** The head cells of a list of people (families, tutors): Name, Address, Phone and Email, the first and last sorting it. */
export function PersonHeaders<C extends string>({
  sorted,
  onSort,
}: {
  sorted: Pick<ListQuery<C | 'name' | 'email'>, 'sort' | 'order'>;
  onSort: (column: C | 'name' | 'email') => void;
}) {
  return (
    <>
      <SortHeader column="name" label="Name" sorted={sorted} onSort={onSort} />
      <Th scope="col">Address</Th>
      <Th scope="col">Phone</Th>
      <SortHeader column="email" label="Email" sorted={sorted} onSort={onSort} />
    </>
  );
}
