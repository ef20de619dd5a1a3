import type { ImportAnswer, ImportKind } from '@agency/contracts';
import { postJson } from '../../lib/http';

export type { ImportAnswer, ImportKind };

/** Where a kind's template is downloaded (the session's cookie carries the sign-in). */
export const templateUrl = (kind: ImportKind) => `/api/import/templates/${kind}.csv`;

/**
 * `POST /api/import`: the whole file each time, and the rows of it to do (`offset`, `limit`), so
 * the real run goes in parts that move a progress bar; a dry run writes nothing.
 */
export const sendImport = (body: {
  kind: ImportKind;
  csv: string;
  key: string;
  dryRun: boolean;
  offset?: number;
  limit?: number;
}) => postJson<ImportAnswer>('/api/import', body);
