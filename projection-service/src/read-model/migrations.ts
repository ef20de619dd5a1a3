import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const folder = join(import.meta.dirname, 'migrations');

/** The read-model DDL, in file-name order. */
export const migrations = readdirSync(folder)
  .filter((name) => name.endsWith('.sql'))
  .sort()
  .map((name) => ({ name, sql: readFileSync(join(folder, name), 'utf8') }));

/**
 * Read models are disposable: when the DDL changes, the service rebuilds them from the events
 * instead of migrating rows. This fingerprint tells whether the live schema is current.
 */
export const readModelVersion = createHash('sha256')
  .update(migrations.map((m) => `${m.name}\n${m.sql}`).join('\n'))
  .digest('hex')
  .slice(0, 16);
