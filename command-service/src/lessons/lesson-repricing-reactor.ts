import type { EngagementEvent } from '@agency/contracts';
import { engagement, timesheet, todayIn } from '@agency/domain';
import type pg from 'pg';
import type { Reactor } from '../reactors/reactor';
import { readModelLookups } from '../read-model/lookups';

export const LESSON_REPRICING = 'lesson-repricing';

/** The engagement events that change the terms lessons are priced by (engagement.termsChangedFrom). */
export const TERMS_CHANGES = ['EngagementRatesChanged', 'EngagementPeriodCorrected'] as const;

/**
 * A change of an engagement's terms is decided on its own stream (one command, one stream); this
 * reprices its lessons from the change's date on, in each tutor's month on its own timesheet
 * (`LessonsRepriced`), by the engagement as it is now. A lesson is priced by the period in force
 * on its date. Each month is its own step (keyed by the month), so a reaction that crashed after
 * some months repeats none of them and completes the rest; the months are those the change's
 * route checked (timesheet.monthsToReprice, from the event's own day), and an invoiced month is
 * left as its invoice froze it (the route refused a change reaching into one).
 */
export function lessonRepricingReactor({ db, timeZone }: { db: pg.Pool; timeZone: string }): Reactor {
  const lookups = readModelLookups(db);
  const { engagementDecider, engagementStream, summaryOf } = engagement;
  const { timesheetDecider, timesheetStream } = timesheet;
  return {
    name: LESSON_REPRICING,
    handles: TERMS_CHANGES,
    async react(event, act) {
      const change = { type: event.type, data: event.data } as EngagementEvent;
      const from = engagement.termsChangedFrom([change]);
      if (!from) return;
      const reading = act('engagement');
      const summary = summaryOf(
        await reading.load(engagementStream(String(event.data.engagementId)), engagementDecider),
      );
      if (!summary) return;
      const known = await lookups.lessonMonthsOf(summary.tutorId, summary.engagementId, from.slice(0, 7));
      for (const month of timesheet.monthsToReprice(from, todayIn(timeZone, reading.now), known)) {
        const step = act(`reprice:${month}`);
        const stream = timesheetStream(summary.tutorId, month);
        const command = timesheet.repricingAfter(change, summary, month, await step.load(stream, timesheetDecider));
        if (command) await step.run(stream, timesheetDecider, command);
      }
    },
  };
}
