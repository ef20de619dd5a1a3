import { agencyEvents } from './agency-events';
import { clientEvents } from './client-events';
import { consultationEvents } from './consultation-events';
import type { EventDefinition, EventOf } from './define';
import { engagementEvents } from './engagement-events';
import { familyAccessEvents } from './family-access-events';
import { familyInvoiceEvents } from './family-invoice-events';
import { invoiceEvents } from './invoice-events';
import { lessonEvents } from './lesson-events';
import { moneyModelEvents } from './money-model-events';
import { payEvents } from './pay-events';
import { payRunEvents } from './pay-run-events';
import { reminderEvents } from './reminder-events';
import { tutorBankEvents } from './tutor-bank-events';
import { tutorEvents } from './tutor-events';
import { createUpcaster, eventUpcastSteps } from './upcasters';
import { userEvents } from './user-events';
import { workshopEvents } from './workshop-events';

export * from './agency-events';
export * from './client-events';
export * from './consultation-events';
export * from './define';
export * from './engagement-events';
export * from './family-access-events';
export * from './family-invoice-events';
export * from './invoice-events';
export * from './lesson-events';
export * from './money-model-events';
export * from './pay-events';
export * from './pay-run-events';
export * from './personal-data';
export * from './reminder-events';
export * from './tutor-bank-events';
export * from './tutor-events';
export * from './upcasters';
export * from './user-events';
export * from './workshop-events';

/** Every event type the product records. */
export const productEvents = [
  ...clientEvents,
  ...engagementEvents,
  ...lessonEvents,
  ...invoiceEvents,
  ...tutorEvents,
  ...userEvents,
  ...agencyEvents,
  ...consultationEvents,
  ...familyInvoiceEvents,
  ...workshopEvents,
  ...familyAccessEvents,
  ...reminderEvents,
  ...moneyModelEvents,
  ...tutorBankEvents,
  ...payRunEvents,
  ...payEvents,
] as const;
/** Any event the product records, `{ type, data }` with `data` typed by its type's schema. */
export type ProductEvent = EventOf<(typeof productEvents)[number]>;
export type ProductEventType = ProductEvent['type'];

/** Every event the product records, by type: the projection runner checks payloads against it. */
export const eventCatalogue: ReadonlyMap<string, EventDefinition<string, import('zod').ZodType>> = new Map(
  productEvents.map((definition) => [definition.type, definition]),
);

/** Each event type's current version, as the catalogue names it. */
export const currentEventVersions: ReadonlyMap<string, number> = new Map(
  [...eventCatalogue.values()].map((definition) => [definition.type, definition.version]),
);

/** The one upcaster the event store applies to every event it reads. */
export const upcastEvent = createUpcaster(currentEventVersions, eventUpcastSteps);
