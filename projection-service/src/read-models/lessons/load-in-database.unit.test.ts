import { START } from '@agency/platform';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { loadLessonsInDatabase, NotLoadableInDatabase } from './load-in-database';
import { lessonsProjection } from './projection';

const noDatabase = {} as pg.ClientBase;
const noLocks = async () => {};

describe('the lessons loaded by the database', () => {
  it('refuses a projection that handles a type its statements do not read, before reading anything', async () => {
    await expect(
      loadLessonsInDatabase(noDatabase, START, noLocks, [...Object.keys(lessonsProjection.handlers), 'LessonNoted']),
    ).rejects.toBeInstanceOf(NotLoadableInDatabase);
  });

  it('reads every type the lessons projection handles', async () => {
    // Past the check, the load reaches the database (here: none, so it fails otherwise).
    const error = await loadLessonsInDatabase(
      noDatabase,
      START,
      noLocks,
      Object.keys(lessonsProjection.handlers),
    ).catch((thrown: unknown) => thrown);
    expect(error).not.toBeInstanceOf(NotLoadableInDatabase);
  });
});
