import type { z } from 'zod';

/**
 * An event type: its past-tense name, the version of its payload schema, and the schema.
 * A change to a payload is a new version with an upcaster, never an edit of an old one.
 */
export type EventDefinition<T extends string, S extends z.ZodType> = {
  type: T;
  version: number;
  schema: S;
};

export function defineEvent<T extends string, S extends z.ZodType>(type: T, version: number, schema: S) {
  return { type, version, schema } satisfies EventDefinition<T, S>;
}

export type EventOf<D> = D extends EventDefinition<infer T, infer S> ? { type: T; data: z.infer<S> } : never;
