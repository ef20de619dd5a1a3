import type { ContactDetails, EngagementEvent, EngagementTerms, LessonDetails, ProductEvent } from '@agency/contracts';
import * as engagement from '../engagement/engagement';
import { displayDate } from '../shared/calendar';
import { formatPercent, formatPounds, toHours } from '../shared/money';

/** An event as a stream holds it: any type, known to this version or not. */
export type StreamEvent = { type: string; data: unknown };

/** What a stream remembers while it is read in order: the "from" of each "changed from … to …". */
type Context = {
  engagement: engagement.EngagementState;
  lessons: Map<string, LessonDetails>;
  contacts: Map<string, ContactDetails>;
};

const hours = (hundredths: number) => `${toHours(hundredths).toFixed(2)} h`;
const percent = (bp: number) => `${formatPercent(bp)}%`;
const fullName = (person: { firstName: string; lastName: string }) => `${person.firstName} ${person.lastName}`;
const list = (items: readonly string[]) => (items.length ? items.join(', ') : 'none');

/** "Rate changed from £40.00 to £45.00": only the values that differ, or the new values when there was none. */
function termChanges(before: EngagementTerms | undefined, after: EngagementTerms): string[] {
  const terms: [string, (value: number) => string, keyof EngagementTerms][] = [
    ['Rate', formatPounds, 'ratePence'],
    ['Commission', percent, 'commissionBp'],
    ['Partner share', percent, 'partnerBp'],
  ];
  return terms
    .filter(([, , key]) => !before || before[key] !== after[key])
    .map(([label, format, key]) =>
      before
        ? `${label} changed from ${format(before[key])} to ${format(after[key])}`
        : `${label} ${format(after[key])}`,
    );
}

function lessonChanges(before: LessonDetails | undefined, after: LessonDetails): string {
  if (!before)
    return `${hours(after.duration)} at ${formatPounds(after.ratePence)}, ${formatPounds(after.amountPence)}`;
  const fields: [string, (value: number) => string, 'duration' | 'ratePence' | 'amountPence' | 'commissionPence'][] = [
    ['duration', hours, 'duration'],
    ['rate', formatPounds, 'ratePence'],
    ['amount', formatPounds, 'amountPence'],
    ['commission', formatPounds, 'commissionPence'],
  ];
  const changed = fields
    .filter(([, , key]) => before[key] !== after[key])
    .map(([label, format, key]) => `${label} from ${format(before[key])} to ${format(after[key])}`);
  return changed.length ? changed.join(', ') : 'no figure changed';
}

function contactChanges(before: ContactDetails | undefined, after: ContactDetails): string {
  if (!before) return fullName(after);
  const fields = ['firstName', 'lastName', 'address', 'postcode', 'email', 'phone', 'dob'] as const;
  const labels = { firstName: 'first name', lastName: 'last name', dob: 'date of birth' } as Record<string, string>;
  const changed = fields.filter((key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]));
  return changed.length ? `${changed.map((key) => labels[key] ?? key).join(', ')} changed` : 'nothing changed';
}

/** 'ConsultationBooked' → 'Consultation booked': an event this version has no words for still reads. */
export function typeInWords(type: string): string {
  const words = type.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function termsInForce(state: engagement.EngagementState, date: string): EngagementTerms | undefined {
  return engagement.periodInForce(engagement.periodsOf(state), date);
}

/** One event in words, given what the stream said before it. */
function describe(event: ProductEvent, context: Context): string {
  switch (event.type) {
    case 'EngagementStarted': {
      const { startDate, subjects } = event.data;
      return `Engagement started on ${displayDate(startDate)}: ${termChanges(undefined, event.data).join(', ')}; subjects ${list(subjects)}`;
    }
    case 'EngagementRatesChanged': {
      const { from } = event.data;
      const changes = termChanges(termsInForce(context.engagement, from), event.data);
      return `${changes.length ? changes.join(', ') : 'Rates restated unchanged'} from ${displayDate(from)}`;
    }
    case 'EngagementSubjectsChanged':
      return `Subjects changed to ${list(event.data.subjects)} from ${displayDate(event.data.from)}`;
    case 'EngagementPeriodCorrected': {
      const { periodStart, startDate } = event.data;
      const changes = termChanges(termsInForce(context.engagement, periodStart), event.data);
      const moved = startDate !== periodStart ? `; it now starts on ${displayDate(startDate)}` : '';
      return `Period from ${displayDate(periodStart)} corrected: ${changes.length ? changes.join(', ') : 'same rates'}; subjects ${list(event.data.subjects)}${moved}`;
    }
    case 'EngagementEnded':
      return `Engagement ended on ${displayDate(event.data.endDate)}`;
    case 'LessonRecorded':
    case 'LessonChanged': {
      const { lesson } = event.data;
      const verb = event.type === 'LessonRecorded' ? 'recorded' : 'changed';
      const before = event.type === 'LessonChanged' ? context.lessons.get(lesson.lessonId) : undefined;
      return `Lesson on ${displayDate(lesson.date)} ${verb}: ${lessonChanges(before, lesson)}`;
    }
    case 'LessonRemoved': {
      const before = context.lessons.get(event.data.lessonId);
      return before ? `Lesson on ${displayDate(before.date)} removed` : 'Lesson removed';
    }
    case 'LessonsRepriced': {
      const { from, lessons } = event.data;
      const each = lessons.map(
        (lesson) => `${displayDate(lesson.date)}: ${lessonChanges(context.lessons.get(lesson.lessonId), lesson)}`,
      );
      return `${lessons.length === 1 ? '1 lesson' : `${lessons.length} lessons`} repriced by the engagement's terms from ${displayDate(from)}: ${each.join('; ')}`;
    }
    case 'TimesheetMonthLocked':
      return `Month ${event.data.month} locked by its invoice`;
    case 'InvoiceGenerated': {
      const { reference, earningsPence, commissionPence, lessonCount } = event.data;
      return `Invoice ${reference} generated: ${lessonCount} lessons, earnings ${formatPounds(earningsPence)}, commission ${formatPounds(commissionPence)}`;
    }
    case 'InvoiceConfirmed':
      return 'Invoice confirmed';
    case 'InvoiceWithdrawn':
      return `Invoice ${event.data.reference} withdrawn before confirmation: the reference is void and never used again`;
    case 'TimesheetMonthUnlocked':
      return `Month ${event.data.month} unlocked: its invoice was withdrawn`;
    case 'InvoicePaymentRecorded':
      return `Payment of ${formatPounds(event.data.amountPence)} recorded, paid on ${displayDate(event.data.date)}`;
    case 'ClientRegistered':
      return `Client registered from ${displayDate(event.data.startDate)}: ${fullName(event.data.contact)}`;
    case 'ContactAdded':
      return `Contact added: ${fullName(event.data.contact)}`;
    case 'ContactDetailsChanged':
    case 'TutorDetailsChanged': {
      const { contact } = event.data;
      return `Contact details of ${fullName(contact)}: ${contactChanges(context.contacts.get(contact.id), contact)}`;
    }
    case 'ChildAdded':
      return `Child added: ${fullName(event.data.child)}`;
    case 'ChildDetailsChanged':
      return `Child's details changed: ${fullName(event.data.child)}`;
    case 'ClientDeactivated':
      return 'Client made inactive';
    case 'ClientReactivated':
      return 'Client made active again';
    case 'TutorRegistered':
      return `Tutor registered from ${displayDate(event.data.startDate)}: ${fullName(event.data.contact)}, invoice prefix ${event.data.invoicePrefix}`;
    case 'TutorTerminated':
      return `Tutor terminated on ${displayDate(event.data.endDate)}`;
    case 'TutorReactivated':
      return `Tutor reactivated from ${displayDate(event.data.startDate)}`;
    case 'TutorActivationEmailSent':
      return 'Activation e-mail sent';
    case 'TutorAccountActivated':
      return `Account activated as ${event.data.username}`;
    case 'TutorEngagementStarted':
      return 'Engagement started with a student';
    case 'TutorEngagementEnded':
      return event.data.abandoned ? 'Engagement abandoned before it was recorded' : 'Engagement ended';
    case 'UserRegistered':
      return `Login ${event.data.username} created as ${event.data.role}`;
    case 'UserRoleChanged':
      return `Role changed to ${event.data.role}`;
    case 'UserPasswordChanged':
      return `Password changed (${event.data.reason.replace(/-/g, ' ')})`;
    default:
      return typeInWords((event as StreamEvent).type);
  }
}

function remember(event: ProductEvent, context: Context) {
  if (event.type.startsWith('Engagement')) {
    context.engagement = engagement.evolve(context.engagement, event as EngagementEvent);
  }
  if (event.type === 'LessonRecorded' || event.type === 'LessonChanged') {
    context.lessons.set(event.data.lesson.lessonId, event.data.lesson);
  }
  if (event.type === 'LessonsRepriced')
    for (const lesson of event.data.lessons) context.lessons.set(lesson.lessonId, lesson);
  if ('contact' in event.data && 'id' in event.data.contact)
    context.contacts.set(event.data.contact.id, event.data.contact);
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/**
 * Each event of one stream in words, in the stream's order: "Rate changed from £40.00 to £45.00
 * from 15 Oct 2026". An event's words may depend on what came before it in the stream (the old
 * rate, the lesson's old duration), so the whole stream is read, never one event alone. An event
 * type this version does not know, or a payload it cannot read, is named by its type.
 */
export function describeStream(events: readonly StreamEvent[]): string[] {
  const context: Context = { engagement: engagement.initialState(), lessons: new Map(), contacts: new Map() };
  return events.map((raw) => {
    if (!isRecord(raw.data)) return typeInWords(raw.type);
    const event = raw as ProductEvent;
    try {
      const words = describe(event, context);
      remember(event, context);
      return words;
    } catch {
      return typeInWords(raw.type);
    }
  });
}
