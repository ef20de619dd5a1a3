import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { LessonEvent } from '@agency/contracts';
import { describe, expect, it } from 'vitest';
import { projections } from './index';
import { FINGERPRINT_MIGRATION, migrations, RUNNER_MIGRATION } from './migrations';
import { defineProjection } from './projection';

describe('read-model folders', () => {
  it('hold each projection beside the migrations it declares, and every migration has one owner', () => {
    const owners = new Map<string, string>();
    for (const projection of projections) {
      const folder = readdirSync(join(import.meta.dirname, projection.name));
      for (const migration of projection.migrations ?? []) {
        expect(folder, `${projection.name} declares ${migration}`).toContain(migration);
        expect(owners.has(migration), `${migration} claimed twice`).toBe(false);
        owners.set(migration, projection.name);
      }
    }
    expect(migrations.map((m) => m.name).filter((name) => !owners.has(name))).toEqual([
      RUNNER_MIGRATION,
      FINGERPRINT_MIGRATION,
    ]);
  });

  it('run their migrations in one global order, by number', () => {
    const names = migrations.map((m) => m.name);
    expect(names[0]).toBe(RUNNER_MIGRATION);
    expect(names).toEqual([...names].sort());
  });
});

describe('defineProjection', () => {
  it('refuses, at compile time, a misspelt event type or payload field (tsc checks these lines)', () => {
    const typed = defineProjection<LessonEvent>({
      name: 'example',
      version: 1,
      migrations: [],
      handlers: {
        LessonRemoved: async (_sql, { data }) => {
          // @ts-expect-error `lessonIdd` is no field of LessonRemoved
          return data.lessonIdd;
        },
        // @ts-expect-error `LessonRecordd` is no lesson event
        LessonRecordd: async () => {},
      },
    });
    expect(Object.keys(typed.handlers).sort()).toEqual(['LessonRecordd', 'LessonRemoved']);
  });
});
