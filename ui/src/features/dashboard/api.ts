import type { DashboardAnswer, EventListAnswer } from '@agency/contracts';
import { getJson } from '../../lib/http';

export type Dashboard = DashboardAnswer;
export type DashboardInvoice = DashboardAnswer['awaitingConfirmation'][number];
export type DashboardMonth = DashboardAnswer['thisMonth'];

export const fetchDashboard = (signal?: AbortSignal) => getJson<Dashboard>('/api/dashboard', signal);

export type UpcomingWorkshop = EventListAnswer['events'][number];

/** The workshops to come (admins): GET /api/events answers only upcoming ones unless asked. */
export const fetchUpcomingWorkshops = (signal?: AbortSignal) =>
  getJson<EventListAnswer>('/api/events', signal).then((answer) => answer.events.filter((event) => !event.cancelled));
