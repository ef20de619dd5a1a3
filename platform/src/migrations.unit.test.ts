import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { EVENT_STORE_MIGRATIONS, PERSONAL_DATA_MIGRATIONS, SESSIONS_MIGRATIONS, sqlMigrations } from './migrations';

describe('numbered migration files (docs/migrations.md)', () => {
  const folders: string[] = [];
  afterEach(() => {
    for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
  });
  /** A folder holding `files` (path → SQL), as a URL ending in a slash, as callers pass it. */
  const folderWith = (files: Record<string, string>) => {
    const root = mkdtempSync(join(tmpdir(), 'agency-migrations-'));
    folders.push(root);
    for (const [path, sql] of Object.entries(files)) {
      mkdirSync(join(root, path, '..'), { recursive: true });
      writeFileSync(join(root, path), sql);
    }
    return pathToFileURL(`${root}/`);
  };

  it('are read in one order by file name, whatever folder they sit in', () => {
    const folder = folderWith({
      'b/002_second.sql': 'select 2',
      'a/003_third.sql': 'select 3',
      '001_first.sql': 'select 1',
    });
    expect(sqlMigrations(folder, { recursive: true }).map((m) => [m.name, m.sql])).toEqual([
      ['001_first.sql', 'select 1'],
      ['002_second.sql', 'select 2'],
      ['003_third.sql', 'select 3'],
    ]);
    expect(sqlMigrations(folder).map((m) => m.name)).toEqual(['001_first.sql']);
  });

  it('refuse a file that is not NNN_words.sql, and two of one name', () => {
    expect(() => sqlMigrations(folderWith({ 'first.sql': 'select 1' }))).toThrow(/NNN_words\.sql, not first\.sql/);
    expect(() => sqlMigrations(folderWith({ '01_first.sql': 'select 1' }))).toThrow(/NNN_words/);
    expect(() =>
      sqlMigrations(folderWith({ 'a/001_same.sql': 'select 1', 'b/001_same.sql': 'select 2' }), { recursive: true }),
    ).toThrow(/named 001_same\.sql/);
  });

  it("platform's own are found beside this module (under tsx and in tests alike)", () => {
    expect(EVENT_STORE_MIGRATIONS.migrations.map((m) => m.name)).toContain('001_event_store.sql');
    expect(PERSONAL_DATA_MIGRATIONS.migrations.map((m) => m.name)).toContain('001_personal_data.sql');
    expect(SESSIONS_MIGRATIONS.migrations.map((m) => m.name)).toContain('001_sessions.sql');
  });
});
