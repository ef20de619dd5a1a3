import { useSearchParams } from 'react-router-dom';

/**
 * A past view's moment, `YYYY-MM-DDTHH:mm[:ss]` in agency time, kept in the address (`?asOf=`)
 * beside the global selection; '' is now.
 */
export function useAsOf() {
  const [params, setParams] = useSearchParams();
  const asOf = params.get('asOf') ?? '';
  const setAsOf = (next: string) =>
    setParams(
      (current) => {
        const search = new URLSearchParams(current);
        if (next) search.set('asOf', next);
        else search.delete('asOf');
        return search;
      },
      { replace: true },
    );
  return { asOf, setAsOf };
}

/** A query string with `asOf` added when a past view is on. */
export function withAsOf(search: URLSearchParams, asOf: string | undefined) {
  if (asOf) search.set('asOf', asOf);
  return search;
}

/** `2025-02-10T14:05` as people read it: `10 Feb 2025, 14:05`. */
export function asOfText(asOf: string) {
  const [date = '', time = ''] = asOf.split('T');
  const [year, month, day] = date.split('-');
  const name = new Date(Date.UTC(Number(year), Number(month) - 1, 1)).toLocaleString('en-GB', {
    month: 'short',
    timeZone: 'UTC',
  });
  return `${day} ${name} ${year}, ${time}`;
}
