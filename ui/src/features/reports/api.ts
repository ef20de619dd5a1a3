import type { InvoiceStatusAnswer, InvoiceStatusGroupView } from '@agency/contracts';
import { withAsOf } from '../../lib/as-of';
import type { CalendarMonth } from '../../lib/calendar-month';
import { getJson } from '../../lib/http';

export type StatusGroup = InvoiceStatusGroupView;

export type Amounts = StatusGroup['totals'];

export type InvoiceStatusReport = InvoiceStatusAnswer;

export const fetchInvoiceStatus = ({ year, month, asOf }: CalendarMonth & { asOf?: string }, signal?: AbortSignal) =>
  getJson<InvoiceStatusReport>(
    `/api/reports/invoiceStatus?${withAsOf(new URLSearchParams({ year: String(year), month: String(month) }), asOf)}`,
    signal,
  );
