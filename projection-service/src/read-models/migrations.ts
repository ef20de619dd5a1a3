import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Projection } from '../projections/projection';

const folder = join(import.meta.dirname, 'migrations');

/** The read-model DDL, in file-name order. */
export const migrations = readdirSync(folder)
  .filter((name) => name.endsWith('.sql'))
  .sort()
  .map((name) => ({ name, sql: readFileSync(join(folder, name), 'utf8') }));

/** The runner's own tables (checkpoints and failures), in every read-model schema. */
export const RUNNER_MIGRATION = '001_checkpoint.sql';

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
