import { client, consultation, engagement, familyInvoice, timesheet, workshop } from '@agency/domain';
import type { EventStore, RecordedEvent } from '@agency/platform';
import type pg from 'pg';
import { streamViews } from '../audit/recorded-events';

type Row = Record<string, unknown>;

/** Every row a query answers, as JSON (dates as YYYY-MM-DD, amounts in pence): one round trip each. */
export async function rows(db: pg.Pool, sql: string, params: unknown[]): Promise<Row[]> {
  const found = await db.query<{ rows: Row[] | null }>(`select json_agg(t) as rows from (${sql}) t`, params);
  return found.rows[0]?.rows ?? [];
}

export const ids = (list: Row[], key = 'id') => list.map((row) => String(row[key]));

/** Whether a stream shared by several families (a tutor's month, a workshop) has an event about this one. */
export const mentionsAny = (needles: readonly string[]) => (event: RecordedEvent) => {
  const text = JSON.stringify(event.data);
  return needles.some((needle) => text.includes(needle));
};

/**
 * Everything held about one family (a subject-access request): its contacts and children, its
 * children's engagements (with their rate periods) and lessons, the tutors' invoices those
 * lessons are on, its consultations, family invoices and their payments, its workshop
 * registrations, and the history of every change with who and when, read from the event store
 * itself (decrypted): the family's own streams whole, and of the streams it shares (tutors'
 * timesheets, workshops) the events that name it. Undefined when there is no such family.
 */
export async function familyExport(db: pg.Pool, store: EventStore, timeZone: string, clientId: string) {
  const [family] = await rows(db, 'select id, start_date, active from clients where id = $1', [clientId]);
  if (!family) return undefined;
  const contacts = await rows(db, 'select * from contacts where client_id = $1 order by seq', [clientId]);
  const children = await rows(db, 'select * from children where client_id = $1 order by id', [clientId]);
  const childIds = ids(children);
  const engagements = await rows(db, 'select * from engagements where student_id = any($1) order by start_date', [
    childIds,
  ]);
  const engagementIds = ids(engagements);
  const ratePeriods = await rows(db, 'select * from engagement_periods where engagement_id = any($1) order by 1, 2', [
    engagementIds,
  ]);
  const lessons = await rows(db, 'select * from lessons where student_id = any($1) order by date, id', [childIds]);
  const invoices = await rows(
    db,
    `select i.id, i.tutor_id, i.month, i.reference, i.date, i.confirmed, i.void from invoices i
      where exists (select 1 from lessons l where l.student_id = any($1) and l.tutor_id = i.tutor_id and l.month = i.month)
      order by i.date, i.reference`,
    [childIds],
  );
  const consultations = await rows(db, 'select * from consultations where client_id = $1 order by date', [clientId]);
  const familyInvoices = await rows(db, 'select * from family_invoices where client_id = $1 order by date', [clientId]);
  const payments = await rows(db, 'select * from family_payments where invoice_id = any($1) order by date, id', [
    ids(familyInvoices),
  ]);
  const registrations = await rows(db, 'select * from workshop_registrations where client_id = $1 order by seq', [
    clientId,
  ]);

  const own = [
    client.clientStream(clientId),
    ...engagementIds.map((id) => engagement.engagementStream(id)),
    ...ids(consultations).map((id) => consultation.consultationStream(id)),
    ...ids(familyInvoices).map((id) => familyInvoice.familyInvoiceStream(id)),
  ];
  const shared = [
    ...new Set([
      ...lessons.map((lesson) => timesheet.timesheetStream(String(lesson.tutor_id), String(lesson.month))),
      ...registrations.map((registration) => workshop.workshopStream(String(registration.event_id))),
    ]),
  ];
  const about = mentionsAny([clientId, ...childIds, ...engagementIds, ...ids(registrations)]);
  const history = [];
  for (const streamId of [...own, ...shared]) {
    const stream = await store.readStream(streamId);
    history.push(...(await streamViews(db, timeZone, stream, own.includes(streamId) ? () => true : about)));
  }
  history.sort((a, b) => a.recordedAt.localeCompare(b.recordedAt));
  return {
    client: family,
    contacts,
    children,
    engagements,
    ratePeriods,
    lessons,
    invoices,
    consultations,
    familyInvoices,
    payments,
    workshopRegistrations: registrations,
    history,
  };
}

export type FamilyExport = NonNullable<Awaited<ReturnType<typeof familyExport>>>;
