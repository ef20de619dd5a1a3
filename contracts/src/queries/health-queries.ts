import { z } from 'zod';

/**
 * `GET /api/health`: `{ status }` for anyone; an admin also gets every projection's position,
 * lag and failure. 503 `{ status: 'unavailable' }` without a read model.
 */
export const healthAnswer = z.object({
  status: z.enum(['ok', 'degraded', 'unavailable']),
  projections: z
    .array(
      z.object({
        name: z.string(),
        position: z.string(),
        lag: z.number().nullable(),
        state: z.enum(['live', 'catching up', 'stalled']),
        failure: z.record(z.string(), z.unknown()).nullable(),
      }),
    )
    .optional(),
});
export type HealthAnswer = z.infer<typeof healthAnswer>;
