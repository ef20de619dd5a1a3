/**
 * Every PostgreSQL advisory lock the projection side takes, in one place so no two share a key
 * (a leader lock that shared the rebuild's key made every rebuild beside a running product wait
 * forever). The migrations lock, 7412001, is platform's (docs/migrations.md).
 */
export const ADVISORY_LOCKS = {
  /** Held by whoever writes read models, so a rebuild's swap never interleaves with a live batch. */
  writer: 7412002,
  /** Held while the read models are rebuilt at start, so two instances cannot both rebuild. */
  rebuild: 7412003,
  /** Held for its lifetime by the one instance that runs the projections. */
  projectionLeader: 7412004,
} as const;
