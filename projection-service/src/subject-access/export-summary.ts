import type { AgencyDetails } from '@agency/contracts';
import { displayDate, formatPounds } from '@agency/domain';
import { drawLetterhead, startDocument } from '@agency/platform/documents/document-layout';
import type { FamilyExport } from './family-export';
import type { RegistrationExport } from './registration-export';

type Row = Record<string, unknown>;
const text = (value: unknown) => (value === null || value === undefined ? '' : String(value));
const date = (value: unknown) => (typeof value === 'string' && value ? displayDate(value.slice(0, 10)) : '');
const pounds = (value: unknown) => formatPounds(Number(value ?? 0));
const phones = (value: unknown) =>
  Array.isArray(value) ? value.map((phone: Row) => text(phone.number ?? phone)).join(', ') : '';
const lines = (value: unknown) => (Array.isArray(value) ? value.map(text).join(', ') : text(value));

/** Each part of an export as a heading and one line per item, in words a family reads. */
export type Sections = [heading: string, items: string[]][];

/** The parts every export has: the family invoices, their payments and the history of changes. */
const billingAndHistory = (data: Pick<FamilyExport, 'familyInvoices' | 'payments' | 'history'>): Sections => [
  [
    'Family invoices',
    data.familyInvoices.map((i) => `${text(i.reference)} of ${date(i.date)}: ${pounds(i.total_pence)}`),
  ],
  ['Payments', data.payments.map((p) => `${date(p.date)}: ${pounds(p.amount_pence)}`)],
  ['History of changes', data.history.map((h) => `${h.when} ${h.who.name} (${h.who.role}): ${h.what}`)],
];

const children = (value: unknown) =>
  Array.isArray(value)
    ? value.map((c: Row) =>
        [
          `${text(c.firstName)} ${text(c.lastName)}`,
          text(c.school),
          c.schoolYear ? `year ${text(c.schoolYear)}` : '',
          c.allergies ? `allergies: ${text(c.allergies)}` : '',
        ]
          .filter(Boolean)
          .join(', '),
      )
    : [];

export function familySections(data: FamilyExport): Sections {
  return [
    [
      'Contacts',
      data.contacts.map((c) =>
        [
          `${text(c.first_name)} ${text(c.last_name)}`,
          lines(c.address),
          text(c.postcode),
          text(c.email),
          phones(c.phone),
          c.dob ? `born ${date(c.dob)}` : '',
        ]
          .filter(Boolean)
          .join(' · '),
      ),
    ],
    [
      'Children',
      data.children.map((c) => `${text(c.first_name)} ${text(c.last_name)}${c.dob ? `, born ${date(c.dob)}` : ''}`),
    ],
    [
      'Engagements',
      data.engagements.map(
        (e) =>
          `${text(e.id)}: from ${date(e.start_date)}${e.end_date ? ` to ${date(e.end_date)}` : ''}, ${pounds(e.rate_pence)} an hour`,
      ),
    ],
    [
      'Lessons',
      data.lessons.map(
        (l) => `${date(l.date)}: ${Number(l.duration_hundredths) / 100} h, ${pounds(l.amount_pence)} (${text(l.id)})`,
      ),
    ],
    ['Tutors’ invoices listing these lessons', data.invoices.map((i) => `${text(i.reference)} of ${date(i.date)}`)],
    ['Consultations', data.consultations.map((c) => `${date(c.date)}: ${pounds(c.amount_pence)} (${text(c.id)})`)],
    [
      'Workshop registrations',
      data.workshopRegistrations.map((r) => `${text(r.id)} (${text(r.status)}), ${text(r.places)} place(s)`),
    ],
    ...billingAndHistory(data),
  ];
}

/** A booking of no known family: who booked, the children, the events it was on, its invoices and history. */
export function registrationSections(data: RegistrationExport): Sections {
  const events = new Map(data.events.map((e) => [String(e.id), e]));
  return [
    [
      'Bookings',
      data.registrations.map((r) => {
        const contact = (r.contact ?? {}) as Row;
        const event = events.get(String(r.event_id));
        return [
          `${text(event?.description)} on ${date(event?.date_time)} (${text(r.status)})`,
          `${text(contact.firstName)} ${text(contact.lastName)}`,
          lines(contact.address),
          text(contact.postcode),
          text(contact.email),
          text(contact.phone),
          r.comments ? `note: ${text(r.comments)}` : '',
        ]
          .filter(Boolean)
          .join(' · ');
      }),
    ],
    ['Children', children(data.registrations.at(-1)?.children)],
    ...billingAndHistory(data),
  ];
}

/** The readable summary of an export: every part with its items; export.json holds every field. */
export function renderExportSummary(
  about: { title: string; whom: string },
  sections: Sections,
  agency: AgencyDetails,
  madeAt: string,
): Promise<Buffer> {
  const { doc, finish } = startDocument({ title: about.title, agency });
  drawLetterhead(doc, 'YOUR DATA', agency);
  doc.font('Helvetica').fontSize(10).text(`Everything we hold about ${about.whom}, as of ${madeAt}.`, 50, 150);
  doc.text('Every field is in export.json, beside this summary.');
  for (const [heading, items] of sections) {
    doc.moveDown().font('Helvetica-Bold').fontSize(12).text(heading);
    doc.font('Helvetica').fontSize(9);
    if (items.length === 0) doc.text('None');
    for (const item of items) doc.text(item);
  }
  return finish();
}
