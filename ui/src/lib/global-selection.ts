import dayjs from 'dayjs';
import { useEffect, useSyncExternalStore } from 'react';
import { useSearchParams } from 'react-router-dom';
import { type CalendarMonth, monthFromSearch } from './calendar-month';
import { useAgencyToday } from './current-user';

/** Spec §3's global selection: a tutor ('' for all tutors) and a calendar month. */
export type Selection = CalendarMonth & { tutorId: string };

const STORAGE_KEY = 'agency.selection';
const listeners = new Set<() => void>();

function read(): Selection | null {
  try {
    const stored = JSON.parse(window.sessionStorage.getItem(STORAGE_KEY) ?? 'null');
    if (!stored || typeof stored.tutorId !== 'string') return null;
    const { year, month } = monthFromSearch(new URLSearchParams({ year: stored.year, month: stored.month }));
    return year === stored.year && month === stored.month ? { year, month, tutorId: stored.tutorId } : null;
  } catch {
    return null;
  }
}

// The snapshot must be the same object until it changes, so it is kept as its JSON text.
const snapshot = () => window.sessionStorage.getItem(STORAGE_KEY) ?? '';

function remember(selection: Selection) {
  const text = JSON.stringify(selection);
  if (text === snapshot()) return;
  window.sessionStorage.setItem(STORAGE_KEY, text);
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * The selection shared by Lessons, Invoices and the invoice status report. The address holds it
 * (`?year&month[&tutorId]`), so a reload or a shared link restores it; a screen opened without
 * it (from the menu) takes the last one chosen in this tab and writes it into its address.
 * `withTutor` is false where the screen has no tutor choice (a tutor's own screens, the report):
 * the stored tutor is then kept for the next screen, not put in this address.
 */
export function useGlobalSelection(withTutor: boolean) {
  const [params, setParams] = useSearchParams();
  const today = dayjs(useAgencyToday());
  useSyncExternalStore(subscribe, snapshot, () => '');
  const stored = read();
  const inAddress = params.has('year') && params.has('month');
  const month = inAddress ? monthFromSearch(params, today) : (stored ?? monthFromSearch(new URLSearchParams(), today));
  const tutorId = withTutor && inAddress ? (params.get('tutorId') ?? '') : (stored?.tutorId ?? '');
  const selection: Selection = { year: month.year, month: month.month, tutorId };

  const addressOf = (next: Selection) => {
    const search = new URLSearchParams({ year: String(next.year), month: String(next.month) });
    if (withTutor && next.tutorId) search.set('tutorId', next.tutorId);
    // A past view (as of a moment) stays on while the selection changes.
    const asOf = params.get('asOf');
    if (asOf) search.set('asOf', asOf);
    return search;
  };

  const key = JSON.stringify(selection);
  useEffect(() => {
    const current: Selection = JSON.parse(key);
    remember(current);
    if (!inAddress) setParams(addressOf(current), { replace: true });
  });

  const select = (next: Partial<Selection>) => {
    const values = { ...selection, ...next };
    remember(values);
    setParams(addressOf(values), { replace: true });
  };
  return { selection, select };
}
