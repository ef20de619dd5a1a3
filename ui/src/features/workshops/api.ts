import type {
  AlternativesAnswer,
  CreditingRegistrationView,
  EventListAnswer,
  EventRegistrationsAnswer,
  EventView,
  RegistrationAnswer,
  WorkshopInvoiceDraft,
  WorkshopsReportAnswer,
} from '@agency/contracts';
import type { Booking } from '../../components/booking-form';
import { getJson, postJson } from '../../lib/http';

export type WorkshopEvent = EventView;
export type Registration = EventRegistrationsAnswer['registrations'][number];
export type CreditingRegistration = CreditingRegistrationView;
export type RegistrationDetails = RegistrationAnswer['registration'];
export type InvoiceDraft = WorkshopInvoiceDraft;
export type ReportGroup = WorkshopsReportAnswer['groups'][number];

export type EventInput = {
  id?: string;
  description: string;
  dateTime: string;
  durationMinutes: string;
  price: string;
  capacity: string;
  location: string;
};

const at = (id: string) => encodeURIComponent(id);

export const fetchEvents = (includePast: boolean, signal?: AbortSignal) =>
  getJson<EventListAnswer>(`/api/events?includePast=${includePast ? 'Y' : 'N'}`, signal).then(
    (answer) => answer.events,
  );

export const fetchRegistrations = (eventId: string, signal?: AbortSignal) =>
  getJson<EventRegistrationsAnswer>(`/api/events/registrations/${at(eventId)}`, signal);

export const fetchRegistration = (ids: { eventId: string; registrationId: string }, signal?: AbortSignal) =>
  getJson<RegistrationAnswer>(`/api/events/registrations/${at(ids.eventId)}/${at(ids.registrationId)}`, signal);

export const fetchAlternatives = (eventId: string, signal?: AbortSignal) =>
  getJson<AlternativesAnswer>(`/api/events/alternatives/${at(eventId)}`, signal).then((answer) => answer.events);

export const fetchWorkshopsReport = (range: { from: string; to: string }, signal?: AbortSignal) => {
  const query = new URLSearchParams(Object.entries(range).filter(([, value]) => value !== ''));
  return getJson<WorkshopsReportAnswer>(`/api/reports/workshops?${query}`, signal).then((answer) => answer.groups);
};

export const saveEvent = (body: EventInput & { commandId: string }) =>
  postJson<{ event: WorkshopEvent }>('/api/events', body).then((answer) => answer.event);

/**
 * An admin's booking on a parent's behalf: confirmed at once, with a place or on the waiting list;
 * `placesLeft`: the event's places left after it (for a booking on the waiting list, those it did not fit in).
 */
export const bookForParent = (body: Booking & { eventId: string; commandId: string }) =>
  postJson<{
    registration: { id: string; status: 'registered' | 'waitlisted'; places: number };
    event: { placesLeft: number };
  }>('/api/events/register', body).then((answer) => ({ ...answer.registration, placesLeft: answer.event.placesLeft }));

export const cancelEvent = (id: string, commandId: string) => postJson('/api/events/cancel', { id, commandId });

type RegistrationRef = { eventId: string; registrationId: string; commandId: string };
export const deleteRegistration = (body: RegistrationRef) => postJson('/api/events/delete', body);
export const placeRegistration = (body: RegistrationRef) => postJson('/api/events/place', body);
export const moveRegistration = (body: {
  fromEventId: string;
  registrationId: string;
  toEventId: string;
  commandId: string;
}) => postJson('/api/events/move', body);

export const createInvoice = (email: string) => postJson<InvoiceDraft>('/api/events/createInvoice', { email });

export const confirmInvoice = (body: { registrationIds: string[]; discountAmount: number; commandId: string }) =>
  postJson<{ invoice: { id: string; reference: string; total: number } }>('/api/events/confirmInvoice', body);

/** Money a family paid against a workshop invoice (a family invoice: part payments too). */
export const recordPayment = (body: { invoiceId: string; date: string; amount: string; commandId: string }) =>
  postJson('/api/family-invoices/payment', body);

/** An invoice's PDF, opened in a new tab with the session cookie. */
export const invoiceDocumentUrl = (id: string) => `/api/family-invoices/doc/${encodeURIComponent(id)}`;

/** A booking of no known family is its own data subject: its erasure (a reason, confirmed) … */
export const eraseRegistration = (registrationId: string, body: { reason: string; confirm: true; commandId: string }) =>
  postJson<{
    registration: { id: string; erased: true };
    kept: { moneyHistory: string; billingDetailsUntil: string | null };
  }>(`/api/workshops/registrations/erase/${encodeURIComponent(registrationId)}`, body);

/** … and its subject-access export (a zip of export.json and summary.pdf), downloaded by the browser. */
export const registrationExportUrl = (registrationId: string) =>
  `/api/workshops/registrations/${encodeURIComponent(registrationId)}/export`;
