/**
 * The words for a workshop's places, one set for the booking forms, the answers and the e-mails,
 * so that what a parent is told before booking is what they are told after. A booking takes
 * places for all its children or goes on the waiting list whole (the `Register`, `RequestBooking`
 * and `MoveIn` decisions in workshop.ts): the words say so whenever some places are left but too
 * few, never "full" when it is not.
 */
import { displayDate } from '../shared/calendar';

/** "1 place", "2 places". */
export const placesText = (places: number) => `${places} ${places === 1 ? 'place' : 'places'}`;

/** "1 child", "2 children". */
export const childrenText = (children: number) => `${children} ${children === 1 ? 'child' : 'children'}`;

/** "1 place left", "2 places left". */
export const placesLeftText = (left: number) => `${placesText(left)} left`;

/** "1 place is left", "2 places are left". */
export const placesAreLeft = (left: number) => `${placesText(left)} ${left === 1 ? 'is' : 'are'} left`;

export const WHOLE_BOOKING_RULE = 'A booking takes places for all its children or goes on the waiting list whole.';

export type BookingOutlook = {
  /** Whether a booking of that many children gets its places. */
  placed: boolean;
  /** What happens to it, in one or two sentences. */
  text: string;
};

/**
 * What a booking of `children` comes to when `left` places are left: every child gets a place,
 * or the booking goes on the waiting list (the event is full, or too few places are left).
 */
export function bookingOutlook(left: number, children: number): BookingOutlook {
  if (children <= left) {
    const who = children === 1 ? 'the child gets a place' : `the ${children} children get places`;
    return { placed: true, text: `${placesAreLeft(left)}: ${who}.` };
  }
  if (left <= 0) return { placed: false, text: 'The workshop is full: a booking goes on the waiting list.' };
  return {
    placed: false,
    text: `${placesAreLeft(left)}: a booking of ${childrenText(children)} goes on the waiting list. ${WHOLE_BOOKING_RULE}`,
  };
}

/**
 * Why a booking of `children` is on the waiting list of `workshop` ("Robot building on 20 Jul
 * 2099 10:00"), `left` places being left when it was made: "full", or too few places for it.
 * `booking` names it: "your booking" to the parent, "the booking" to the admin.
 */
export function waitingListSentence(workshop: string, left: number, children: number, booking = 'your booking') {
  if (left <= 0) return `${workshop} is full, so ${booking} is on the waiting list.`;
  const were = `${placesText(left)} ${left === 1 ? 'was' : 'were'} left`;
  return `Only ${were} at ${workshop}, and a booking takes places for all its children or none, so ${booking} of ${childrenText(children)} is on the waiting list.`;
}

/**
 * A workshop's start and end (agency time), from its start (`YYYY-MM-DDTHH:mm`) and duration:
 * "10:00 – 11:30", or with the end's date when it ends on another day.
 */
export function timeSpan(dateTime: string, durationMinutes: number): string {
  const start = dateTime.slice(11, 16);
  const end = new Date(Date.parse(`${dateTime}:00Z`) + durationMinutes * 60_000).toISOString();
  const endDay = end.slice(0, 10) === dateTime.slice(0, 10) ? '' : `${displayDate(end.slice(0, 10))} `;
  return `${start} – ${endDay}${end.slice(11, 16)}`;
}
