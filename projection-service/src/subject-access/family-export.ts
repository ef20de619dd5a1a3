import type { ExportInvoice, ExportPayment, ExportWorkshopBooking, FamilyDataExport } from '@agency/contracts';
import {
  client,
  consultation,
  engagement,
  familyInvoice,
  timesheet,
  toHours,
  toPounds,
  workshop,
} from '@agency/domain';
import type { EventStore, RecordedEvent } from '@agency/platform';
import type pg from 'pg';
import { familyHistory, type HistorySource } from './family-history';

type Row = Record<string, unknown>;

/**
 * Every row a query answers, as JSON (dates as YYYY-MM-DD, amounts in pence): one round trip each.
 * Each query names its columns: an export holds what its contract lists (subject-access-export.ts).
 */
export async function rows<T = Row>(db: pg.Pool, sql: string, params: unknown[]): Promise<T[]> {
  const found = await db.query<{ rows: T[] | null }>(`select json_agg(t) as rows from (${sql}) t`, params);
  return found.rows[0]?.rows ?? [];
}

export const ids = (list: Row[], key = 'id') => list.map((row) => String(row[key]));

/** Whether a stream shared by several families (a tutor's month, a workshop) has an event about this one. */
export const mentionsAny = (needles: readonly string[]) => (event: RecordedEvent) => {
  const text = JSON.stringify(event.data);
  return needles.some((needle) => text.includes(needle));
};

type InvoiceRow = {
  id: string;
  reference: string;
  date: string;
  dueDate: string;
  billing: ExportInvoice['billedTo'];
  lines: { description: string; amountPence: number }[];
  totalPence: number;
  paidPence: number;
  creditNoteReference: string | null;
  creditNoteDate: string | null;
  creditReason: string | null;
};

/**
 * The family invoices chosen by `where` (over `family_invoices f`), as the family received them,
 * with their payments; and their ids, whose streams tell the history.
 */
export async function familyDocuments(
  db: pg.Pool,
  where: string,
  params: unknown[],
): Promise<{ invoiceIds: string[]; invoices: ExportInvoice[]; payments: ExportPayment[] }> {
  const found = await rows<InvoiceRow>(
    db,
    `select f.id, f.reference, f.date, f.due_date as "dueDate", f.billing, f.lines, f.total_pence as "totalPence",
            f.paid_pence as "paidPence", f.credit_note_reference as "creditNoteReference",
            f.credit_note_date as "creditNoteDate", f.credit_reason as "creditReason"
       from family_invoices f where ${where} order by f.date, f.reference`,
    params,
  );
  const invoiceIds = found.map((invoice) => invoice.id);
  const payments = await rows<{ invoice: string; date: string; amountPence: number }>(
    db,
    `select f.reference as invoice, p.date, p.amount_pence as "amountPence"
       from family_payments p join family_invoices f on f.id = p.invoice_id
      where p.invoice_id = any($1) order by p.date, p.id`,
    [invoiceIds],
  );
  return {
    invoiceIds,
    invoices: found.map((f) => ({
      reference: f.reference,
      date: f.date,
      dueDate: f.dueDate,
      billedTo: {
        name: f.billing.name,
        address: f.billing.address,
        postcode: f.billing.postcode,
        email: f.billing.email,
      },
      lines: f.lines.map((line) => ({ description: line.description, amount: toPounds(Number(line.amountPence)) })),
      total: toPounds(Number(f.totalPence)),
      paid: toPounds(Number(f.paidPence)),
      owed: f.creditNoteReference ? 0 : toPounds(Math.max(Number(f.totalPence) - Number(f.paidPence), 0)),
      creditNote:
        f.creditNoteReference && f.creditNoteDate
          ? {
              reference: f.creditNoteReference,
              date: f.creditNoteDate,
              reason: f.creditReason ?? '',
              total: toPounds(Number(f.totalPence)),
            }
          : null,
    })),
    payments: payments.map((p) => ({ invoice: p.invoice, date: p.date, amount: toPounds(Number(p.amountPence)) })),
  };
}

type BookingRow = {
  id: string;
  eventId: string;
  event: string;
  date: string;
  location: string;
  eventCancelled: boolean;
  status: string;
  contact: Partial<ExportWorkshopBooking['bookedBy']>;
  children: Partial<ExportWorkshopBooking['children'][number]>[];
  comments: string;
};

const BOOKING_STATUS: Record<string, ExportWorkshopBooking['status']> = {
  registered: 'booked',
  waitlisted: 'on the waiting list',
  deleted: 'cancelled',
  moved: 'moved to another event',
};

/**
 * The workshop bookings chosen by `where` (over `workshop_registrations r`), each on its event;
 * and their ids and events' ids, whose streams tell the history.
 */
export async function workshopBookings(
  db: pg.Pool,
  where: string,
  params: unknown[],
): Promise<{ registrationIds: string[]; eventIds: string[]; bookings: ExportWorkshopBooking[] }> {
  const found = await rows<BookingRow>(
    db,
    `select r.id, r.event_id as "eventId", coalesce(e.description, '') as event,
            coalesce(to_char(e.date_time, 'YYYY-MM-DD HH24:MI'), '') as date, coalesce(e.location, '') as location,
            coalesce(e.cancelled, false) as "eventCancelled", r.status, r.contact, r.children, r.comments
       from workshop_registrations r left join workshop_events e on e.id = r.event_id
      where ${where} order by r.seq`,
    params,
  );
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  return {
    registrationIds: [...new Set(found.map((r) => r.id))],
    eventIds: [...new Set(found.map((r) => r.eventId))],
    bookings: found.map((r) => ({
      event: r.event,
      date: r.date,
      location: r.location,
      eventCancelled: r.eventCancelled,
      status: BOOKING_STATUS[r.status] ?? 'booked',
      bookedBy: {
        firstName: text(r.contact.firstName),
        lastName: text(r.contact.lastName),
        address: Array.isArray(r.contact.address) ? r.contact.address.map(text) : [],
        postcode: text(r.contact.postcode),
        email: text(r.contact.email),
        phone: text(r.contact.phone),
      },
      children: r.children.map((child) => ({
        firstName: text(child.firstName),
        lastName: text(child.lastName),
        school: text(child.school),
        schoolYear: text(child.schoolYear),
        allergies: text(child.allergies),
      })),
      comments: text(r.comments),
    })),
  };
}

const childName = "c.first_name || ' ' || c.last_name";
const tutorName = "coalesce(t.first_name || ' ' || t.last_name, 'a tutor')";

/**
 * Everything held about one family (a subject-access request), as the family may read it
 * (subject-access-export.ts): its contacts and children, its children's tutoring and the lessons
 * delivered, its consultations, family invoices and their payments, its workshop bookings, and the
 * history of every change told to the family (family-history.ts), read from the event store
 * itself (decrypted): the family's own streams whole, and of the streams it shares (tutors'
 * timesheets, workshops) the events that name it. Nothing of the agency's commercial terms or of
 * its staff. Undefined when there is no such family.
 */
export async function familyExport(
  db: pg.Pool,
  store: EventStore,
  timeZone: string,
  clientId: string,
): Promise<Omit<FamilyDataExport, 'exportedAt'> | undefined> {
  const [family] = await rows<{ id: string; since: string }>(
    db,
    'select id, start_date as since from clients where id = $1',
    [clientId],
  );
  if (!family) return undefined;
  const contacts = await rows<FamilyDataExport['contacts'][number]>(
    db,
    `select first_name as "firstName", last_name as "lastName", address, postcode, email, phone, dob as "dateOfBirth"
       from contacts where client_id = $1 order by seq`,
    [clientId],
  );
  const children = await rows<{ id: string; firstName: string; lastName: string; dateOfBirth: string | null }>(
    db,
    `select id, first_name as "firstName", last_name as "lastName", dob as "dateOfBirth"
       from children where client_id = $1 order by id`,
    [clientId],
  );
  const childIds = ids(children);
  const tutoring = await rows<FamilyDataExport['tutoring'][number] & { id: string }>(
    db,
    `select e.id, ${childName} as child, ${tutorName} as tutor, e.start_date as "startDate", e.end_date as "endDate",
            e.subjects
       from engagements e join children c on c.id = e.student_id left join tutors t on t.id = e.tutor_id
      where c.client_id = $1 order by e.start_date, e.id`,
    [clientId],
  );
  const engagementIds = ids(tutoring);
  // A lesson's subjects are those of its engagement's period in force on its date.
  const lessons = await rows<Omit<FamilyDataExport['lessons'][number], 'hours'> & Row>(
    db,
    `select l.date, ${childName} as child, ${tutorName} as tutor,
            coalesce((select p.subjects from engagement_periods p
                       where p.engagement_id = l.engagement_id and p.start_date <= l.date
                       order by p.start_date desc limit 1), '[]'::jsonb) as subjects,
            l.duration_hundredths as "durationHundredths", l.tutor_id as "tutorId", l.month
       from lessons l join children c on c.id = l.student_id left join tutors t on t.id = l.tutor_id
      where c.client_id = $1 order by l.date, l.id`,
    [clientId],
  );
  const consultations = await rows<{
    id: string;
    date: string;
    child: string | null;
    amountPence: number;
    subjects: string[] | null;
    assessor: string | null;
    cancelled: boolean;
  }>(
    db,
    `select k.id, k.date, ${childName} as child, k.amount_pence as "amountPence", k.assessment -> 'subjects' as subjects,
            case when k.assessment ->> 'tutorId' is not null then ${tutorName} end as assessor, k.cancelled
       from consultations k left join children c on c.id = k.child_id
            left join tutors t on t.id = k.assessment ->> 'tutorId'
      where k.client_id = $1 order by k.date, k.id`,
    [clientId],
  );
  const { invoiceIds, invoices, payments } = await familyDocuments(db, 'f.client_id = $1', [clientId]);
  const booked = await workshopBookings(db, 'r.client_id = $1', [clientId]);

  const whole = () => true;
  const about = mentionsAny([clientId, ...childIds, ...engagementIds, ...booked.registrationIds]);
  const sources: HistorySource[] = [
    { streamId: client.clientStream(clientId), about: whole },
    ...engagementIds.map((id) => ({ streamId: engagement.engagementStream(id), about: whole })),
    ...ids(consultations).map((id) => ({ streamId: consultation.consultationStream(id), about: whole })),
    ...invoiceIds.map((id) => ({ streamId: familyInvoice.familyInvoiceStream(id), about: whole })),
    ...[
      ...new Set([
        ...lessons.map((lesson) => timesheet.timesheetStream(String(lesson.tutorId), String(lesson.month))),
        ...booked.eventIds.map((id) => workshop.workshopStream(id)),
      ]),
    ].map((streamId) => ({ streamId, about })),
  ];

  return {
    family,
    contacts,
    children: children.map(({ firstName, lastName, dateOfBirth }) => ({ firstName, lastName, dateOfBirth })),
    tutoring: tutoring.map(({ child, tutor, startDate, endDate, subjects }) => ({
      child,
      tutor,
      startDate,
      endDate,
      subjects,
    })),
    lessons: lessons.map((lesson) => ({
      date: lesson.date,
      child: lesson.child,
      tutor: lesson.tutor,
      subjects: lesson.subjects,
      hours: toHours(Number(lesson.durationHundredths)),
    })),
    consultations: consultations.map((k) => ({
      date: k.date,
      child: k.child ?? '',
      amount: toPounds(Number(k.amountPence)),
      assessment: k.subjects ? { subjects: k.subjects, tutor: k.assessor } : null,
      cancelled: k.cancelled,
    })),
    invoices,
    payments,
    workshopBookings: booked.bookings,
    history: await familyHistory(store, timeZone, sources),
  };
}
