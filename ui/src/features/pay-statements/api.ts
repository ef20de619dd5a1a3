import type { PayStatementAnswer, PayStatementSummary } from '@agency/contracts';
import { getJson, postJson } from '../../lib/http';

export type { PayStatementAnswer, PayStatementSummary };
export type PayStatementDetail = PayStatementAnswer['statement'];

type Command = { commandId: string };

/** The statements a user reads (a tutor: their own), newest month first; `month` narrows them to one. */
export function fetchPayStatements(month: string, signal?: AbortSignal) {
  const path = month ? `/api/pay-statements?${new URLSearchParams({ month })}` : '/api/pay-statements';
  return getJson<{ statements: PayStatementSummary[] }>(path, signal).then((answer) => answer.statements);
}

export const fetchPayStatement = (id: string, signal?: AbortSignal) =>
  getJson<PayStatementAnswer>(`/api/pay-statements/${encodeURIComponent(id)}`, signal).then(
    (answer) => answer.statement,
  );

/** The statement's PDF, opened in a new tab (the session cookie opens it). */
export const payStatementPdfUrl = (id: string) => `/api/pay-statements/${encodeURIComponent(id)}/document.pdf`;

/** Prepares the month's statements (admins): each tutor's is issued by the reactor that follows. */
export const preparePayStatements = (body: { month: string } & Command) =>
  postJson<{ month: string; statements: PayStatementSummary[]; underWay: boolean }>('/api/pay-statements', body);

/** The tutor (or an admin on their behalf) confirms a statement. */
export const confirmPayStatement = (body: { id: string } & Command) =>
  postJson<{ statement: PayStatementSummary }>('/api/pay-statements/confirm', body);
