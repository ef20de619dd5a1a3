import type { PublicEventsAnswer, PublicEventView } from '@agency/contracts';
import type { Booking } from '../../components/booking-form';
import { getJson, postJson } from '../../lib/http';

export type OpenEvent = PublicEventView;

export type BookingInput = Booking & { commandId: string; website: string };

/** Upcoming events with places left: no sign-in. */
export const fetchOpenEvents = (signal?: AbortSignal) =>
  getJson<PublicEventsAnswer>('/api/public/events', signal).then((answer) => answer.events);

/** A public booking is requested: its places are held (`held`) until the e-mailed link confirms it. */
export type RequestedBooking = { id: string; status: 'requested'; held: boolean; expiresAt?: string };

export const book = (eventId: string, body: BookingInput) =>
  postJson<{ registration: RequestedBooking }>(
    `/api/public/events/${encodeURIComponent(eventId)}/registrations`,
    body,
  ).then((answer) => answer.registration);

export type ConfirmedBooking = {
  registration: { id: string; status: 'registered' | 'waitlisted'; places: number };
  event: { description: string; dateTime: string };
};

/** The e-mailed link's secret confirms its booking. */
export const confirmBooking = (token: string) => postJson<ConfirmedBooking>('/api/public/bookings/confirm', { token });
