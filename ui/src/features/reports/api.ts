import type { InvoiceStatusAnswer, InvoiceStatusGroupView } from '@agency/contracts';
import type { CalendarMonth } from '../../lib/calendar-month';
import { getJson } from '../../lib/http';

export type StatusGroup = InvoiceStatusGroupView;

export type Amounts = StatusGroup['totals'];

export type InvoiceStatusReport = InvoiceStatusAnswer;

export const fetchInvoiceStatus = ({ year, month }: CalendarMonth, signal?: AbortSignal) =>
  getJson<InvoiceStatusReport>(`/api/reports/invoiceStatus?year=${year}&month=${month}`, signal);
