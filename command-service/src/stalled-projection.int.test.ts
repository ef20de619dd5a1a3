import { healthAnswer, projectionFailureView } from '@agency/contracts';
import { parsePosition } from '@agency/platform';
import { type TestProduct, useTestProduct } from '@agency/scripts/testing/test-product';
import { contact, testRequests } from '@agency/scripts/testing/test-requests';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';

const ann = contact('Ann', 'Lee');

describe('a stalled projection (real PostgreSQL, both services)', () => {
  let product: TestProduct;
  let db: pg.Pool;
  let admin: string;

  useTestProduct((started) => {
    ({ product, db, admin } = started);
  });

  const { ok: post } = testRequests(
    () => product,
    () => admin,
  );
  const health = async (token?: string) => {
    const response = await fetch(`${product.url}/api/health`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
    expect(response.status).toBe(200);
    return response.json();
  };

  it('answers visible:false at once, the health report names it, and all is visible again once it resumes', async () => {
    const first = await post('/api/clients/contact', ann);
    expect(first.visible).toBe(true);
    expect(await health()).toEqual({ status: 'ok' });

    // The clients read model refuses one child (as a too-large value once did): its projection stops there.
    await db.query("alter table read.children add constraint refuse_stall check (first_name <> 'Stall')");
    const stalling = await post(`/api/clients/child/${first.client.id}`, {
      firstName: 'Stall',
      lastName: 'Lee',
      dob: '2015-01-01',
    });
    expect(stalling.visible).toBe(false);

    // The command is recorded; later commands still succeed, and answer visible:false without
    // waiting when the stalled projection handles their events: a wait this long would time the test out.
    const second = await post('/api/clients/contact', { ...ann, firstName: 'Bea' });
    expect(second.visible).toBe(false);
    const { projections } = product.command.deps;
    expect(await projections.waitFor(parsePosition(second.position), 600_000, ['ClientRegistered'])).toBe(false);
    // Events no stalled projection handles are waited for as usual.
    expect(await projections.waitFor(parsePosition(second.position), 600_000, ['UserRegistered'])).toBe(true);

    const anonymous = await health();
    expect(anonymous).toEqual({ status: 'degraded' });
    const report = await health(admin);
    const clients = report.projections.find((p: { name: string }) => p.name === 'clients');
    expect(clients).toMatchObject({ state: 'stalled', failure: { type: 'ChildAdded' } });
    expect(clients.failure.error).toContain('refuse_stall');
    // The report as its contract describes it, the failure's every field named (the admin's banner reads them).
    expect(healthAnswer.parse(report)).toEqual(report);
    expect(Object.keys(clients.failure).sort()).toEqual(Object.keys(projectionFailureView.shape).sort());
    expect(clients.failure.since).toEqual(expect.any(String));
    expect(clients.lag).toBeGreaterThanOrEqual(2);
    for (const other of report.projections.filter((p: { name: string }) => p.name !== 'clients')) {
      expect(other, other.name).toMatchObject({ state: 'live', failure: null });
    }

    // Fixed: the retry applies the child and what followed; answers are visible again.
    await db.query('alter table read.children drop constraint refuse_stall');
    await expect
      .poll(async () => (await health()).status === 'ok', {
        message: 'the clients projection to resume',
        timeout: 60_000,
      })
      .toBe(true);
    const detail = await fetch(`${product.url}/api/clients/${first.client.id}`, {
      headers: { authorization: `Bearer ${admin}` },
    }).then((r) => r.json());
    expect(detail.client.children.map((c: { firstName: string }) => c.firstName)).toEqual(['Stall']);
    const third = await post('/api/clients/contact', { ...ann, firstName: 'Cy' });
    expect(third.visible).toBe(true);
  });
});
