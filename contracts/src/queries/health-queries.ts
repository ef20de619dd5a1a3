import { z } from 'zod';

/**
 * `GET /api/health`: `{ status }` for anyone; an admin also gets every projection's position,
 * lag and failure. 503 `{ status: 'unavailable' }` without a read model.
 */
/** Where a projection stopped: the event it could not apply, the error, since when, and its retries. */
export const projectionFailureView = z.looseObject({
  position: z.string(),
  streamId: z.string(),
  eventId: z.string(),
  type: z.string(),
  error: z.string(),
  at: z.string(),
  since: z.string().nullable(),
  attempts: z.number(),
  nextRetryAt: z.string().nullable(),
});
export type ProjectionFailureView = z.infer<typeof projectionFailureView>;

export const healthAnswer = z.object({
  status: z.enum(['ok', 'degraded', 'unavailable']),
  projections: z
    .array(
      z.object({
        name: z.string(),
        position: z.string(),
        lag: z.number().nullable(),
        state: z.enum(['live', 'catching up', 'stalled']),
        failure: projectionFailureView.nullable(),
      }),
    )
    .optional(),
  /** What follows from events (credits, invoices, moves, e-mails): each reactor's place and failure. */
  reactors: z
    .array(
      z.object({
        name: z.string(),
        position: z.string(),
        state: z.enum(['live', 'stalled']),
        failure: projectionFailureView.nullable(),
      }),
    )
    .optional(),
});
export type HealthAnswer = z.infer<typeof healthAnswer>;
