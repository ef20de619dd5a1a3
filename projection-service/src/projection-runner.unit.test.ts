import type { RecordedEvent } from '@agency/platform';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { applyEvents, type ProjectionStatus } from './projection-runner';
import type { Projection } from './read-models/projection';

const event = (commit: number, type: string): RecordedEvent => ({
  id: `e-${commit}`,
  streamId: 's',
  revision: commit,
  position: { commit: BigInt(commit), prepare: BigInt(commit) },
  type,
  data: {},
  metadata: { userId: 'u', role: 'admin', commandId: 'c', correlationId: 'c', causationId: 'c', recordedAt: '' },
});

const status = (name: string): ProjectionStatus => ({
  name,
  version: 1,
  handles: [],
  position: { commit: 0n, prepare: 0n },
  following: true,
  failedAt: null,
  failure: null,
  attempts: 0,
  retryAt: null,
  due: true,
});

/** Every statement sent, and the (batch) handlers called with the types they were given. */
function recording() {
  const statements: { text: string; values?: unknown[] }[] = [];
  const calls: string[] = [];
  const sql = {
    query: async (text: string, values?: unknown[]) => {
      statements.push({ text, values });
      return { rows: [{ retry_at: new Date() }], rowCount: 1 };
    },
  } as unknown as pg.ClientBase;
  const projection = (name: string, type: string, batched: boolean): Projection => ({
    name,
    version: 1,
    handlers: { [type]: async () => calls.push(`${name} ${type}`) },
    ...(batched
      ? { applyBatch: async (_, events) => calls.push(`${name} batch ${events.map((e) => e.type).join(',')}`) }
      : {}),
  });
  return { sql, statements, calls, projection };
}

describe('applyEvents', () => {
  it('runs only the projections a batch concerns, and moves every checkpoint past it in one statement', async () => {
    const { sql, statements, calls, projection } = recording();
    const projections = [
      projection('lessons', 'LessonRecorded', true),
      projection('invoices', 'InvoiceGenerated', true),
      projection('users', 'UserRegistered', false),
      projection('clients', 'ClientRegistered', false),
    ];
    const statuses = new Map(projections.map((p) => [p.name, status(p.name)]));
    const failures = await applyEvents(
      sql,
      [event(1, 'LessonRecorded'), event(2, 'ClientRegistered'), event(3, 'LessonRecorded')],
      projections,
      statuses,
    );
    expect(failures).toEqual([]);
    expect(calls).toEqual(['lessons batch LessonRecorded,ClientRegistered,LessonRecorded', 'clients ClientRegistered']);
    // A savepoint each for the two concerned projections; none for the others.
    expect(statements.filter((s) => s.text.startsWith('savepoint'))).toHaveLength(2);
    const checkpoints = statements.filter((s) => s.text.includes('update projection_checkpoints'));
    expect(checkpoints).toHaveLength(1);
    expect(checkpoints[0]?.values).toEqual([
      ['lessons', 'invoices', 'users', 'clients'],
      ['3', '3', '3', '3'],
      ['3', '3', '3', '3'],
    ]);
  });

  it('leaves a checkpoint already past the batch where it is', async () => {
    const { sql, statements, calls, projection } = recording();
    const lessons = projection('lessons', 'LessonRecorded', true);
    const ahead = { ...status('lessons'), position: { commit: 5n, prepare: 5n } };
    await applyEvents(sql, [event(4, 'LessonRecorded')], [lessons], new Map([['lessons', ahead]]));
    expect(calls).toEqual([]);
    expect(statements).toEqual([]);
  });
});
