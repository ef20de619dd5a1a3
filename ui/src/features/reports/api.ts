import type { CalendarMonth } from '../../lib/calendar-month';
import { getJson } from '../../lib/http';

export type Amounts = { earnings: number; commission: number; partnerCommission: number };

export type StatusGroup = {
  /** 0 no lessons entered, 1 lessons but no invoice, 2 invoice not paid, 3 invoice paid (spec §4). */
  group: number;
  heading: string;
  /** Whether the group's table shows Earnings, Commission and Partner Share. */
  full: boolean;
  tutors: (Amounts & { tutorId: string; name: string })[];
  totals: Amounts;
};

export type InvoiceStatusReport = { year: number; month: number; period: string; groups: StatusGroup[] };

export const fetchInvoiceStatus = ({ year, month }: CalendarMonth, signal?: AbortSignal) =>
  getJson<InvoiceStatusReport>(`/api/reports/invoiceStatus?year=${year}&month=${month}`, signal);
