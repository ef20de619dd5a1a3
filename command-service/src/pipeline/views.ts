import type {
  EngagementAnswer,
  InvoiceAnswer,
  SessionUser,
  TimesheetAnswer,
  WorkshopInvoiceDraft,
} from '@agency/contracts';

/**
 * The query side's views a command may answer with (spec §7: the lesson save answers with the
 * week's grid, …), called in this process with the caller's own role rules once the projections
 * show the command. The query side provides them; the app wires them in.
 */
export type Views = {
  timesheet: (
    user: SessionUser,
    query: { month: string; from: string; to: string; tutorId?: string },
  ) => Promise<TimesheetAnswer>;
  engagement: (user: SessionUser, params: { tutorId: string; engagementId: string }) => Promise<EngagementAnswer>;
  invoice: (user: SessionUser, id: string) => Promise<InvoiceAnswer>;
  invoiceDraft: (user: SessionUser, query: { email: string }) => Promise<WorkshopInvoiceDraft>;
};

type WithoutUser<F> = F extends (user: SessionUser, ...rest: infer A) => infer R ? (...rest: A) => R : never;

/** The views as one caller sees them. */
export type CallerViews = { [K in keyof Views]: WithoutUser<Views[K]> };

export function viewsFor(views: Views, user: SessionUser): CallerViews {
  return {
    timesheet: (query) => views.timesheet(user, query),
    engagement: (params) => views.engagement(user, params),
    invoice: (id) => views.invoice(user, id),
    invoiceDraft: (query) => views.invoiceDraft(user, query),
  };
}
