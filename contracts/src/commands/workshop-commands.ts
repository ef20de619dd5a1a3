import { z } from 'zod';
import { LIMITS } from '../limits';
import { commandId, entityId, optionalText, requiredText } from '../values';
import { contactBody } from './client-commands';
import { poundsFromForm } from './engagement-commands';

const wholeNumber = (required: string, label: string, min: number, max: number) =>
  z.preprocess(
    (value) => (value === '' || value === null ? undefined : value),
    z.coerce
      .number({ error: required })
      .int(`${label} must be a whole number`)
      .min(min, `${label} must be at least ${min}`)
      .max(max, `${label} must be at most ${max}`),
  );

const longText = (max: number) =>
  z
    .string()
    .max(max * 4, `Too long (${max} characters at most)`)
    .trim()
    .max(max, `Too long (${max} characters at most)`)
    .default('');

/** `YYYY-MM-DDTHH:mm` in the agency's time zone, within the product's calendar. */
const dateTimeField = z
  .string({ error: 'Date and time are required' })
  .min(1, 'Date and time are required')
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/, 'Date and time must look like 2026-07-20T10:00')
  .refine((text) => {
    const [date = '', time = ''] = text.split('T');
    const [hours = 0, minutes = 0] = time.split(':').map(Number);
    const day = new Date(`${date}T00:00:00Z`);
    return (
      date >= LIMITS.minDate &&
      date <= LIMITS.maxDate &&
      !Number.isNaN(day.getTime()) &&
      day.toISOString().slice(0, 10) === date &&
      hours < 24 &&
      minutes < 60
    );
  }, 'Enter a real date and time');

/** `POST /api/events`: schedule (no `id`) or change a workshop event. */
export const workshopEventBody = z.object({
  commandId,
  id: entityId().optional(),
  description: requiredText('Description is required'),
  dateTime: dateTimeField,
  durationMinutes: wholeNumber('Duration is required', 'Duration', 1, LIMITS.maxWorkshopMinutes),
  price: poundsFromForm('Price is required', 'Price', { max: LIMITS.maxMoneyPence / 100 }),
  capacity: wholeNumber('Capacity is required', 'Capacity', 1, LIMITS.maxWorkshopCapacity),
  location: optionalText.default(''),
});

export const workshopEventCancelBody = z.object({ commandId, id: entityId('Event is required') });

const bookingChild = z.object({
  firstName: requiredText('First name is required'),
  lastName: requiredText('Last name is required'),
  school: optionalText.default(''),
  schoolYear: optionalText.default(''),
  allergies: longText(LIMITS.maxAllergiesLength),
});

/**
 * `POST /api/public/events/{eventId}/registrations`: a parent's booking, with the contact form's
 * rules and messages (one phone number). `website` is a honeypot: people never see it, bots fill it.
 */
const bookingFields = {
  commandId,
  contact: contactBody.pick({ firstName: true, lastName: true, address: true, postcode: true, email: true }).extend({
    phone: requiredText('Phone is required', LIMITS.maxPhoneNumberLength),
  }),
  comments: longText(LIMITS.maxCommentsLength),
};
const childrenUpTo = (most: number) =>
  z.array(bookingChild).min(1, 'Add at least one child').max(most, `At most ${most} children in one booking`);

/**
 * `POST /api/public/events/{eventId}/registrations`: a booking asked for by anyone (no login). It
 * is *requested* until the address confirms it from the e-mailed link (docs/limits.md, "Public
 * bookings"). `website` is a honeypot: filled in, nothing is recorded.
 */
export const bookingBody = z.object({
  ...bookingFields,
  children: childrenUpTo(LIMITS.maxChildrenPerPublicBooking),
  website: z.string().max(LIMITS.maxTextLength).optional(),
});

/** `POST /api/events/register`: an admin books on a parent's behalf (no confirmation link). */
export const adminBookingBody = z.object({
  ...bookingFields,
  eventId: entityId('Event is required'),
  children: childrenUpTo(LIMITS.maxChildrenPerBooking),
});

/** `POST /api/public/bookings/confirm`: the secret of the e-mailed confirmation link. */
export const bookingConfirmBody = z.object({
  token: z
    .string()
    .min(1, 'The link is incomplete')
    .max(200, 'The link is not one we sent')
    .regex(/^[A-Za-z0-9_-]+$/, 'The link is not one we sent'),
});

const registrationRef = {
  commandId,
  eventId: entityId('Event is required'),
  registrationId: entityId('Registration is required'),
};
/** `POST /api/events/delete`. */
export const registrationDeleteBody = z.object(registrationRef);
/** `POST /api/events/place`: a waiting-list registration given a place that is free. */
export const registrationPlaceBody = z.object(registrationRef);
/** `POST /api/events/move`. */
export const registrationMoveBody = z.object({
  commandId,
  fromEventId: entityId('Event is required'),
  registrationId: entityId('Registration is required'),
  toEventId: entityId('The event to move to is required'),
});

/** `POST /api/events/createInvoice`: the draft of what that e-mail's family owes. */
export const workshopInvoiceDraftBody = z.object({ email: requiredText('Email is required', LIMITS.maxEmailLength) });

/** `POST /api/events/confirmInvoice`: the discount is whole pounds (the field takes digits only). */
export const workshopInvoiceConfirmBody = z.object({
  commandId,
  registrationIds: z
    .array(entityId('Registration is required'))
    .min(1, 'Include at least one registration')
    .max(LIMITS.maxRegistrationsPerInvoice, `At most ${LIMITS.maxRegistrationsPerInvoice} registrations`),
  discountAmount: z.preprocess(
    (value) => (value === '' || value === null || value === undefined ? 0 : value),
    poundsFromForm('Discount is required', 'Discount', { max: LIMITS.maxMoneyPence / 100 }),
  ),
});
