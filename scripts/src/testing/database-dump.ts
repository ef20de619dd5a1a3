import { PostgresEventStore } from '@agency/platform';
import { projections, rebuildReadModels } from '@agency/projection-service';
import type pg from 'pg';
import { expect } from 'vitest';
import { openPersonalData } from '../personal-data';
import type { TestProduct } from './test-product';

/** Every row of every table of every schema the product keeps (events, read models, command side, keys), as text. */
export async function dumpDatabase(db: pg.Pool): Promise<string> {
  const tables = await db.query<{ table_schema: string; table_name: string }>(
    `select table_schema, table_name from information_schema.tables
      where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema') order by 1, 2`,
  );
  expect(tables.rows.map((row) => row.table_schema)).toEqual(
    expect.arrayContaining(['es', 'read', 'command', 'auth', 'pii']),
  );
  const parts: string[] = [];
  for (const { table_schema, table_name } of tables.rows) {
    const rows = await db.query<{ t: string }>(`select t::text as t from "${table_schema}"."${table_name}" t`);
    parts.push(`${table_schema}.${table_name}`, ...rows.rows.map((row) => row.t));
  }
  // Ciphertexts and wrapped keys are random bytes: a short name could turn up in their text by chance.
  return parts
    .join('\n')
    .replace(/"(ct|iv|tag)": "[A-Za-z0-9+/=]*"/g, '')
    .replace(/\\\\x[0-9a-f]+/g, '');
}

/** Every row of every read model, to compare a rebuild with the live projections. */
export async function readModels(db: pg.Pool) {
  const tables = await db.query(
    "select table_name from information_schema.tables where table_schema = 'read' and table_name not like 'projection_%' order by 1",
  );
  const rows: Record<string, string[]> = {};
  for (const { table_name } of tables.rows) {
    rows[table_name] = (await db.query(`select t::text from read."${table_name}" t order by 1`)).rows.map((r) => r.t);
  }
  return rows;
}

/** Rebuilds every read model from the events as a fresh process would (its own key cache), in place. */
export async function rebuildAsAFreshProcess(product: TestProduct, db: pg.Pool) {
  const personalData = await openPersonalData(product.dataDir, product.databaseUrl);
  const store = personalData.protect(await PostgresEventStore.connect(product.databaseUrl));
  try {
    await rebuildReadModels(db, store, projections);
  } finally {
    await store.close();
    await personalData.close();
  }
}
