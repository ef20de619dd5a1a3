import type { ExportHistoryEntry, LessonDetails, ProductEvent, WorkshopEventDetails } from '@agency/contracts';
import { displayDate, engagement, formatPounds, toHours } from '@agency/domain';
import type { EventStore, RecordedEvent } from '@agency/platform';
import { agencyTime } from '../audit/recorded-events';

/**
 * The history in a subject-access export, told to the family rather than to an auditor
 * (docs/personal-data.md). Three rules:
 * - who did something is named by role ("the agency", "the tutor"), never by name, login or id;
 * - no word of the agency's commercial terms: a lesson is its date and length, never its price,
 *   and an event that only concerns those terms (a change of rate, commission or partner share, a
 *   tutor's month locked by the tutor's invoice) is left out, not reworded;
 * - an event type this file has no family words for is left out too, so a new event reaches the
 *   family only once someone has written what it says to them.
 */

/** What a stream remembers while it is read in order: the "before" of a change, the events' names. */
type Context = {
  engagement: engagement.EngagementState;
  lessons: Map<string, LessonDetails>;
  events: Map<string, WorkshopEventDetails>;
  people: Map<string, object>;
};

const hours = (hundredths: number) => `${toHours(hundredths).toFixed(2)} h`;
const list = (items: readonly string[]) => (items.length ? items.join(', ') : 'none');
const fullName = (person: { firstName: string; lastName: string }) => `${person.firstName} ${person.lastName}`;
const children = (count: number) => (count === 1 ? '1 child' : `${count} children`);

/** Who did it, by role: staff are "the agency" whoever they are. */
function byRole(role: string): string {
  switch (role) {
    case 'tutor':
      return 'the tutor';
    case 'public':
      return 'an online booking';
    case 'family':
      return 'you';
    default:
      return 'the agency';
  }
}

function contactChanges(kind: 'contact' | 'child', before: object | undefined, after: object): string {
  if (!before) return 'details recorded';
  const labels: Record<string, string> = { firstName: 'first name', lastName: 'last name', dob: 'date of birth' };
  const changed = Object.keys(after).filter(
    (key) => key !== 'id' && JSON.stringify((before as never)[key]) !== JSON.stringify((after as never)[key]),
  );
  return changed.length ? `${changed.map((key) => labels[key] ?? key).join(', ')} changed` : `${kind} unchanged`;
}

function eventName(context: Context, eventId: string): string {
  const found = context.events.get(eventId);
  return found ? `${found.description} on ${displayDate(found.dateTime.slice(0, 10))}` : 'a workshop';
}

function subjectsInForce(context: Context, date: string): string[] | undefined {
  return engagement.periodInForce(engagement.periodsOf(context.engagement), date)?.subjects;
}

/** One event in the family's words, given what the stream said before it; undefined: not told to the family. */
function describe(event: ProductEvent, context: Context): string | undefined {
  switch (event.type) {
    case 'ClientRegistered':
      return `Registered with the agency from ${displayDate(event.data.startDate)}: ${fullName(event.data.contact)}`;
    case 'ContactAdded':
      return `Contact added: ${fullName(event.data.contact)}`;
    case 'ContactDetailsChanged': {
      const { contact } = event.data;
      return `Contact details of ${fullName(contact)}: ${contactChanges('contact', context.people.get(contact.id), contact)}`;
    }
    case 'ChildAdded':
      return `Child added: ${fullName(event.data.child)}`;
    case 'ChildDetailsChanged': {
      const { child } = event.data;
      return `Details of ${fullName(child)}: ${contactChanges('child', context.people.get(child.id), child)}`;
    }
    case 'ClientDeactivated':
      return 'Your family’s record made inactive';
    case 'ClientReactivated':
      return 'Your family’s record made active again';
    case 'ClientErased':
      return 'Your family’s personal data erased';

    case 'EngagementStarted':
      return `Tutoring started on ${displayDate(event.data.startDate)}; subjects ${list(event.data.subjects)}`;
    case 'EngagementSubjectsChanged':
      return `Subjects changed to ${list(event.data.subjects)} from ${displayDate(event.data.from)}`;
    case 'EngagementPeriodCorrected': {
      // Told only when what the family sees changed: the subjects, or when the period starts.
      const { periodStart, startDate, subjects } = event.data;
      const before = subjectsInForce(context, periodStart);
      const moved = startDate !== periodStart;
      if (!moved && JSON.stringify(before) === JSON.stringify(subjects)) return undefined;
      return `Tutoring from ${displayDate(startDate)} corrected: subjects ${list(subjects)}`;
    }
    case 'EngagementEnded':
      return `Tutoring ended on ${displayDate(event.data.endDate)}`;

    case 'LessonRecorded':
      return `Lesson on ${displayDate(event.data.lesson.date)} recorded: ${hours(event.data.lesson.duration)}`;
    case 'LessonChanged': {
      const { lesson } = event.data;
      const before = context.lessons.get(lesson.lessonId);
      if (!before) return `Lesson on ${displayDate(lesson.date)} changed: ${hours(lesson.duration)}`;
      const changes = [
        before.date !== lesson.date ? `moved from ${displayDate(before.date)}` : '',
        before.duration !== lesson.duration ? `from ${hours(before.duration)} to ${hours(lesson.duration)}` : '',
      ].filter(Boolean);
      // A change of its price alone is the agency's business.
      return changes.length ? `Lesson on ${displayDate(lesson.date)} changed: ${changes.join(', ')}` : undefined;
    }
    case 'LessonRemoved': {
      const before = context.lessons.get(event.data.lessonId);
      return before ? `Lesson on ${displayDate(before.date)} removed` : 'Lesson removed';
    }

    case 'ConsultationRecorded':
    case 'ConsultationChanged': {
      const { date, amountPence, assessment } = event.data;
      const verb = event.type === 'ConsultationRecorded' ? 'recorded' : 'changed';
      const assessed = assessment ? `, assessment in ${list(assessment.subjects)}` : '';
      return `Consultation on ${displayDate(date)} ${verb}: ${formatPounds(amountPence)}${assessed}`;
    }
    case 'ConsultationCancelled':
      return 'Consultation cancelled';

    case 'FamilyInvoiceIssued':
      return `Invoice ${event.data.reference} issued on ${displayDate(event.data.date)}: ${formatPounds(event.data.totalPence)}`;
    case 'FamilyInvoicePaymentRecorded':
      return `Payment of ${formatPounds(event.data.amountPence)} received, paid on ${displayDate(event.data.date)}`;
    case 'FamilyCreditNoteIssued':
      return `Credit note ${event.data.reference} issued on ${displayDate(event.data.date)}: ${formatPounds(event.data.totalPence)}`;

    case 'WorkshopEventCancelled':
      return `${eventName(context, event.data.eventId)} cancelled`;
    case 'WorkshopRegistrationMade': {
      const { eventId, children: booked, status, movedFrom } = event.data;
      const what = movedFrom ? 'Booking moved to' : 'Booked on';
      const waiting = status === 'waitlisted' ? ', on the waiting list' : '';
      return `${what} ${eventName(context, eventId)} for ${children(booked.length)}${waiting}`;
    }
    case 'WorkshopRegistrationPlaced':
      return `Given a place on ${eventName(context, event.data.eventId)} from the waiting list`;
    case 'WorkshopRegistrationDeleted':
      return `Booking on ${eventName(context, event.data.eventId)} cancelled`;
    case 'WorkshopRegistrationMovedOut':
      return `Booking on ${eventName(context, event.data.eventId)} moved to ${eventName(context, event.data.toEventId)}`;
    case 'WorkshopRegistrationErased':
      return 'The booking’s personal data erased';

    default:
      return undefined;
  }
}

function remember(event: ProductEvent, context: Context) {
  if (event.type.startsWith('Engagement')) {
    context.engagement = engagement.evolve(context.engagement, event as Parameters<typeof engagement.evolve>[1]);
  }
  if (event.type === 'LessonRecorded' || event.type === 'LessonChanged') {
    context.lessons.set(event.data.lesson.lessonId, event.data.lesson);
  }
  if (event.type === 'WorkshopEventScheduled' || event.type === 'WorkshopEventChanged') {
    context.events.set(event.data.eventId, event.data);
  }
  if ('contact' in event.data && 'id' in event.data.contact)
    context.people.set(event.data.contact.id, event.data.contact);
  if ('child' in event.data && 'id' in event.data.child) context.people.set(event.data.child.id, event.data.child);
}

/** A stream to tell, and which of its events are about the subject (the stream is read whole for context). */
export type HistorySource = { streamId: string; about: (event: RecordedEvent) => boolean };

/**
 * The history of these streams told to the family, oldest first. Each stream is read from its
 * start, since an event's words depend on what came before it (the lesson's old length, the
 * workshop's name). A lesson's removal names only the lesson, so it is about the family when the
 * lesson was. An event that cannot be read is left out.
 */
export async function familyHistory(
  store: EventStore,
  timeZone: string,
  sources: readonly HistorySource[],
): Promise<ExportHistoryEntry[]> {
  const told: { recordedAt: string; entry: ExportHistoryEntry }[] = [];
  for (const { streamId, about } of sources) {
    const context: Context = {
      engagement: engagement.initialState(),
      lessons: new Map(),
      events: new Map(),
      people: new Map(),
    };
    const lessonsAbout = new Set<string>();
    for (const recorded of await store.readStream(streamId)) {
      if (recorded.readError) continue;
      const event = recorded as unknown as ProductEvent;
      let what: string | undefined;
      try {
        const isAbout = event.type === 'LessonRemoved' ? lessonsAbout.has(event.data.lessonId) : about(recorded);
        if (isAbout && (event.type === 'LessonRecorded' || event.type === 'LessonChanged')) {
          lessonsAbout.add(event.data.lesson.lessonId);
        }
        what = isAbout ? describe(event, context) : undefined;
        remember(event, context);
      } catch {
        continue;
      }
      if (what === undefined) continue;
      const { recordedAt, role } = recorded.metadata;
      told.push({
        recordedAt: new Date(recordedAt).toISOString(),
        entry: { when: agencyTime(recordedAt, timeZone), by: byRole(role), what },
      });
    }
  }
  return told.sort((a, b) => a.recordedAt.localeCompare(b.recordedAt)).map(({ entry }) => entry);
}
