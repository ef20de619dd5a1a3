import { createHash } from 'node:crypto';
import { sqlMigrations } from '@agency/platform/migrations';
import type { Projection } from './projection';

/**
 * The read-model DDL: every `NNN_*.sql` under this folder (the runner's own here, each read
 * model's in its folder), in one global order by file name, so a folder never decides the order.
 * Read by the same loader as every other schema's migrations; applied whole to each new read
 * schema rather than recorded one by one, since a read model is rebuilt, not migrated
 * (docs/migrations.md, "Read models").
 */
export const migrations = sqlMigrations(new URL('./', import.meta.url), { recursive: true });

/** The runner's own tables (checkpoints and failures), in every read-model schema. */
export const RUNNER_MIGRATION = '001_checkpoint.sql';
/** The fingerprint's table, in a full build's schema only. */
export const FINGERPRINT_MIGRATION = '001_read_model_info.sql';

/**
 * Read models are disposable: when the DDL or a projection's handlers change, the service
 * rebuilds them from the events instead of migrating rows. This fingerprint tells whether the
 * live schema is current: it covers every migration and, per projection, its name, its
 * `version` (bumped with its handlers) and the event types it handles.
 */
export function readModelVersion(projections: Projection[]): string {
  const handlers = [...projections]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((p) => `${p.name}@${p.version}: ${Object.keys(p.handlers).sort().join(' ')}`);
  return createHash('sha256')
    .update(migrations.map((m) => `${m.name}\n${m.sql}`).join('\n'))
    .update(`\n${handlers.join('\n')}`)
    .digest('hex')
    .slice(0, 16);
}
