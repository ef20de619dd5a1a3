import type { PublicEventsAnswer, PublicEventView } from '@agency/contracts';
import { getJson, postJson } from '../../lib/http';

export type OpenEvent = PublicEventView;

export type BookingInput = {
  commandId: string;
  contact: { firstName: string; lastName: string; address: string[]; postcode: string; email: string; phone: string };
  children: { firstName: string; lastName: string; school: string; schoolYear: string; allergies: string }[];
  comments: string;
  website: string;
};

/** Upcoming events with places left: no sign-in. */
export const fetchOpenEvents = (signal?: AbortSignal) =>
  getJson<PublicEventsAnswer>('/api/public/events', signal).then((answer) => answer.events);

export const book = (eventId: string, body: BookingInput) =>
  postJson<{ registration: { id: string; status: 'registered' | 'waitlisted' } }>(
    `/api/public/events/${encodeURIComponent(eventId)}/registrations`,
    body,
  ).then((answer) => answer.registration);
