import { clientEvents } from './client-events';
import type { EventDefinition } from './define';
import { engagementEvents } from './engagement-events';
import { invoiceEvents } from './invoice-events';
import { lessonEvents } from './lesson-events';
import { tutorEvents } from './tutor-events';
import { userEvents } from './user-events';

export * from './client-events';
export * from './define';
export * from './engagement-events';
export * from './invoice-events';
export * from './lesson-events';
export * from './tutor-events';
export * from './user-events';

/** Every event the product records, by type: the projection runner checks payloads against it. */
export const eventCatalogue: ReadonlyMap<string, EventDefinition<string, import('zod').ZodType>> = new Map(
  [...clientEvents, ...engagementEvents, ...lessonEvents, ...invoiceEvents, ...tutorEvents, ...userEvents].map(
    (definition) => [definition.type, definition],
  ),
);
