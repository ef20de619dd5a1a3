import { clientEvents } from './client-events';
import type { EventDefinition } from './define';
import { userEvents } from './user-events';

export * from './client-events';
export * from './define';
export * from './user-events';

/** Every event the product records, by type: the projection runner checks payloads against it. */
export const eventCatalogue: ReadonlyMap<string, EventDefinition<string, import('zod').ZodType>> = new Map(
  [...clientEvents, ...userEvents].map((definition) => [definition.type, definition]),
);
