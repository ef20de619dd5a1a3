import { PostgresEventStore } from '@agency/platform';
import { projections } from '@agency/projection-service';
import {
  compareWithRebuild,
  liveReadModelIsCurrent,
  type ReadModelDifference,
} from '@agency/projection-service/read-models/read-schema';
import pg from 'pg';
import { openPersonalData } from '../personal-data';

/** Set to `off` to leave the check out (a run that measures something else). */
export const REBUILD_CHECK_ENV = 'REBUILD_CHECK';

const describe = ({ table, onlyLive, onlyRebuilt, liveRow, rebuiltRow }: ReadModelDifference) =>
  [
    `  ${table}: ${onlyLive} live row(s) a rebuild does not make, ${onlyRebuilt} rebuilt row(s) not live`,
    liveRow && `    live:    ${liveRow.slice(0, 2000)}`,
    rebuiltRow && `    rebuilt: ${rebuiltRow.slice(0, 2000)}`,
  ]
    .filter(Boolean)
    .join('\n');

/**
 * Read models must come out of a rebuild exactly as the live projections made them. Run on a
 * test product's database as it is disposed of (its projections stopped, so nothing moves): every
 * read model is rebuilt from the events, up to where each live projection stands, and compared
 * table by table; a difference fails with the table and a row of each side. A database whose read
 * model was never made (a product that did not start) is left alone.
 */
export async function expectReadModelsEqualARebuild(product: { databaseUrl: string; dataDir: string }) {
  if (process.env[REBUILD_CHECK_ENV] === 'off') return;
  const pool = new pg.Pool({ connectionString: product.databaseUrl, max: 4 });
  pool.on('error', () => {});
  try {
    if (!(await liveReadModelIsCurrent(pool, projections))) return;
    const personalData = await openPersonalData(product.dataDir, product.databaseUrl);
    const store = personalData.protect(await PostgresEventStore.connect(product.databaseUrl, { max: 4 }));
    try {
      const { differences, failures } = await compareWithRebuild(pool, store, projections);
      const problems = [
        ...failures.map(
          ({ projection, failure }) =>
            `  ${projection}: a rebuild cannot apply ${failure.type} (${failure.streamId}) that the live one applied: ${failure.error}`,
        ),
        ...differences.map(describe),
      ];
      if (problems.length > 0) {
        throw new Error(`The live read models differ from a rebuild of the same events:\n${problems.join('\n')}`);
      }
    } finally {
      await store.close();
      await personalData.close();
    }
  } finally {
    await pool.end();
  }
}
