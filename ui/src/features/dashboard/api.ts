import type { DashboardAnswer } from '@agency/contracts';
import { getJson } from '../../lib/http';

export type Dashboard = DashboardAnswer;
export type DashboardInvoice = DashboardAnswer['awaitingConfirmation'][number];
export type DashboardMonth = DashboardAnswer['thisMonth'];

export const fetchDashboard = (signal?: AbortSignal) => getJson<Dashboard>('/api/dashboard', signal);
