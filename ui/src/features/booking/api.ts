import type { PublicAgencyView, PublicEventsAnswer, PublicEventView } from '@agency/contracts';
import type { Booking } from '../../components/booking-form';
import { getJson, postJson } from '../../lib/http';

export type OpenEvent = PublicEventView;
export type PublicAgency = PublicAgencyView;

export type BookingInput = Booking & { commandId: string; website: string };

/** Upcoming events with places left, and the agency that runs them: no sign-in. */
export const fetchOpenEvents = (signal?: AbortSignal) => getJson<PublicEventsAnswer>('/api/public/events', signal);

/**
 * A public booking is requested: its places are held (`held`) until the e-mailed link confirms it.
 * `places`: its children; `placesLeft`: the event's places left for others (a booking not held did
 * not fit in them). A honeypot's answer has neither.
 */
export type RequestedBooking = {
  id: string;
  status: 'requested';
  held: boolean;
  expiresAt?: string;
  places?: number;
  placesLeft?: number;
};

export const book = (eventId: string, body: BookingInput) =>
  postJson<{ registration: RequestedBooking }>(
    `/api/public/events/${encodeURIComponent(eventId)}/registrations`,
    body,
  ).then((answer) => answer.registration);

export type ConfirmedBooking = {
  registration: { id: string; status: 'registered' | 'waitlisted'; places: number };
  event: { description: string; dateTime: string; placesLeft: number };
};

/** The e-mailed link's secret confirms its booking. */
export const confirmBooking = (token: string) => postJson<ConfirmedBooking>('/api/public/bookings/confirm', { token });
