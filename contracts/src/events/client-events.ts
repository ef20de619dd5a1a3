import { z } from 'zod';
import { calendarDate } from '../values';
import { defineEvent, type EventOf } from './define';

export const contactDetails = z.object({
  id: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  address: z.array(z.string()),
  postcode: z.string(),
  email: z.string(),
  phone: z.array(z.object({ type: z.string(), number: z.string() })),
  dob: calendarDate.nullable(),
});
export type ContactDetails = z.infer<typeof contactDetails>;

export const childDetails = z.object({
  id: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  dob: calendarDate,
});
export type ChildDetails = z.infer<typeof childDetails>;

export const ClientRegistered = defineEvent(
  'ClientRegistered',
  1,
  z.object({ clientId: z.string(), startDate: calendarDate, contact: contactDetails }),
);
export const ContactAdded = defineEvent('ContactAdded', 1, z.object({ clientId: z.string(), contact: contactDetails }));
export const ContactDetailsChanged = defineEvent(
  'ContactDetailsChanged',
  1,
  z.object({ clientId: z.string(), contact: contactDetails }),
);
export const ChildAdded = defineEvent('ChildAdded', 1, z.object({ clientId: z.string(), child: childDetails }));
export const ChildDetailsChanged = defineEvent(
  'ChildDetailsChanged',
  1,
  z.object({ clientId: z.string(), child: childDetails }),
);
export const ClientDeactivated = defineEvent('ClientDeactivated', 1, z.object({ clientId: z.string() }));
export const ClientReactivated = defineEvent('ClientReactivated', 1, z.object({ clientId: z.string() }));
/**
 * The family's personal data was erased (its key destroyed): who did it is the event's metadata,
 * why is `reason`. Nothing personal, so it reads the same after the erasure.
 */
export const ClientErased = defineEvent(
  'ClientErased',
  1,
  z.object({ clientId: z.string(), reason: z.string(), erasedAt: z.iso.datetime() }),
);

export const clientEvents = [
  ClientRegistered,
  ContactAdded,
  ContactDetailsChanged,
  ChildAdded,
  ChildDetailsChanged,
  ClientDeactivated,
  ClientReactivated,
  ClientErased,
] as const;

export type ClientEvent = EventOf<(typeof clientEvents)[number]>;
