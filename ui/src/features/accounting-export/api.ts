import type { AccountingExportQuery } from '@agency/contracts';

export type ExportChoice = Required<Pick<AccountingExportQuery, 'from' | 'to' | 'layout' | 'part'>> & { since: string };

/** The export's address: the period, the layout and part, and (for only what is new) an earlier export's mark. */
export const exportUrl = ({ since, ...choice }: ExportChoice) =>
  `/api/reports/accounting-export?${new URLSearchParams({ ...choice, ...(since.trim() ? { since: since.trim() } : {}) })}`;

/** The export as a file, and its mark (what `since` takes next time), read from the answer's `export-mark` header. */
export async function downloadExport(choice: ExportChoice): Promise<{ file: Blob; mark: string; name: string }> {
  const response = await fetch(exportUrl(choice), { credentials: 'same-origin' });
  if (!response.ok) {
    const body = (await response.json().catch(() => null)) as { error?: { message?: string } } | null;
    throw new Error(body?.error?.message ?? `The export failed (${response.status}).`);
  }
  const disposition = response.headers.get('content-disposition') ?? '';
  const name = /filename="([^"]+)"/.exec(disposition)?.[1] ?? 'export.csv';
  return { file: await response.blob(), mark: response.headers.get('export-mark') ?? '', name };
}
