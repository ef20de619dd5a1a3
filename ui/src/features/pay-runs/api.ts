import type { PayRunAnswer, PayRunListAnswer } from '@agency/contracts';
import { getJson, postJson } from '../../lib/http';

export type { PayRunAnswer, PayRunListAnswer };

/** Every pay run, the latest month first (admins). */
export const fetchPayRuns = (signal?: AbortSignal) => getJson<PayRunListAnswer>('/api/pay-runs', signal);

/** One month's run: its lines, who is left out and why, who waits (admins). */
export const fetchPayRun = (month: string, signal?: AbortSignal) =>
  getJson<PayRunAnswer>(`/api/pay-runs/${month}`, signal);

/** Prepares the month's run, or prepares it again until it is paid. */
export const preparePayRun = (body: { month: string; commandId: string }) =>
  postJson<{ payRun: { month: string } }>('/api/pay-runs', body);

/**
 * The run's bank file was paid on `date`: each payment is recorded on its statement. `statements`:
 * those of the run's lines with bank details as shown (refused if it was prepared again since).
 */
export const markPayRunPaid = (month: string, body: { date: string; commandId: string; statements: string[] }) =>
  postJson<{ payRun: { month: string; paidOn: string } }>(`/api/pay-runs/paid/${month}`, body);

/** The run's bank file (CSV) to upload to the bank. */
export const bankFileUrl = (month: string) => `/api/pay-runs/${month}/bank-file.csv`;
