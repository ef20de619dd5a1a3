import { type MigrationSet, migrate, migrationSet, SESSIONS_MIGRATIONS } from '@agency/platform/migrations';
import type pg from 'pg';
import { putEarlierEngagementsOnRosters } from './engagements/roster';
import type { CommandDependencies } from './pipeline/command-pipeline';

/**
 * The command side's own tables (`auth`, `command`, `invoice`): credentials (never in events),
 * processed command ids, names taken, reactors' checkpoints and the rest, as the numbered SQL files
 * of `migrations/` (docs/migrations.md).
 */
export const COMMAND_MIGRATIONS = migrationSet('command', new URL('./migrations/', import.meta.url));

/** Every table the command side reads or writes, made or brought up to date: the sessions' and its own. */
export function migrateCommandSide(db: pg.Pool | pg.ClientBase): Promise<string[]> {
  return migrate(db, SESSIONS_MIGRATIONS, COMMAND_MIGRATIONS);
}

/** The owner under which the command side's data migrations are recorded. */
export const COMMAND_DATA = 'command-data';

/**
 * The command side's data migrations: steps that record events through the deciders, so they run
 * once the app's command dependencies exist (after its tables). Each is safe to run again: a
 * process that dies before its step is recorded runs it again at its next start.
 */
export function commandDataMigrations(deps: CommandDependencies): MigrationSet {
  return {
    owner: COMMAND_DATA,
    migrations: [{ name: '001_tutor_rosters', up: () => putEarlierEngagementsOnRosters(deps) }],
  };
}
