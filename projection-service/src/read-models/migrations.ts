import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Projection } from './projection';

/**
 * The read-model DDL: every `NNN_*.sql` under this folder (the runner's own here, each read
 * model's in its folder), in one global order by file name, so a folder never decides the order.
 */
export const migrations = readdirSync(import.meta.dirname, { recursive: true, encoding: 'utf8' })
  .filter((path) => path.endsWith('.sql'))
  .map((path) => ({ name: basename(path), sql: readFileSync(join(import.meta.dirname, path), 'utf8') }))
  .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

const duplicate = migrations.find((m, i) => i > 0 && migrations[i - 1].name === m.name);
if (duplicate) throw new Error(`Two read-model migrations are named ${duplicate.name}.`);

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
