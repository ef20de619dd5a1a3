import type { AgencyDetails, BookingDataExport, ExportWorkshopBooking, FamilyDataExport } from '@agency/contracts';
import { displayDate, formatPounds, toPence } from '@agency/domain';
import { drawLetterhead, startDocument } from '@agency/platform/documents/document-layout';

const date = (value: string | null) => (value ? displayDate(value.slice(0, 10)) : '');
const pounds = (value: number) => formatPounds(toPence(value));
const joined = (parts: readonly string[], separator = ', ') => parts.filter(Boolean).join(separator);

/** Each part of an export as a heading and one line per item, in words a family reads. */
export type Sections = [heading: string, items: string[]][];

type Billing = Pick<FamilyDataExport, 'invoices' | 'payments' | 'history' | 'workshopBookings'>;

/** The parts every export has: workshop bookings, family invoices, their payments and the history of changes. */
const bookingsBillingAndHistory = (data: Billing): Sections => [
  ['Workshop bookings', data.workshopBookings.map(booking)],
  [
    'Invoices',
    data.invoices.map((i) =>
      joined([
        `${i.reference} of ${date(i.date)}: ${pounds(i.total)}`,
        `paid ${pounds(i.paid)}`,
        i.creditNote ? `cancelled by credit note ${i.creditNote.reference} of ${date(i.creditNote.date)}` : '',
        i.owed > 0 ? `owed ${pounds(i.owed)}` : '',
      ]),
    ),
  ],
  ['Payments', data.payments.map((p) => `${date(p.date)}: ${pounds(p.amount)} for ${p.invoice}`)],
  ['History of changes', data.history.map((h) => `${h.when} by ${h.by}: ${h.what}`)],
];

function booking(b: ExportWorkshopBooking): string {
  return joined(
    [
      `${b.event} on ${date(b.date)} (${b.status}${b.eventCancelled ? ', event cancelled' : ''})`,
      `${b.bookedBy.firstName} ${b.bookedBy.lastName}`,
      joined(b.bookedBy.address),
      b.bookedBy.postcode,
      b.bookedBy.email,
      b.bookedBy.phone,
      ...b.children.map((c) =>
        joined([
          `${c.firstName} ${c.lastName}`,
          c.school,
          c.schoolYear ? `year ${c.schoolYear}` : '',
          c.allergies ? `allergies: ${c.allergies}` : '',
        ]),
      ),
      b.comments ? `note: ${b.comments}` : '',
    ],
    ' · ',
  );
}

export function familySections(data: Omit<FamilyDataExport, 'exportedAt'>): Sections {
  return [
    [
      'Contacts',
      data.contacts.map((c) =>
        joined(
          [
            `${c.firstName} ${c.lastName}`,
            joined(c.address),
            c.postcode,
            c.email,
            joined(c.phone.map((phone) => phone.number)),
            c.dateOfBirth ? `born ${date(c.dateOfBirth)}` : '',
          ],
          ' · ',
        ),
      ),
    ],
    [
      'Children',
      data.children.map((c) => `${c.firstName} ${c.lastName}${c.dateOfBirth ? `, born ${date(c.dateOfBirth)}` : ''}`),
    ],
    [
      'Tutoring',
      data.tutoring.map(
        (t) =>
          `${t.child} with ${t.tutor}: from ${date(t.startDate)}${t.endDate ? ` to ${date(t.endDate)}` : ''}, subjects ${joined(t.subjects) || 'none'}`,
      ),
    ],
    [
      'Lessons',
      data.lessons.map((l) =>
        joined([`${date(l.date)}: ${l.child} with ${l.tutor}`, joined(l.subjects), `${l.hours.toFixed(2)} h`]),
      ),
    ],
    [
      'Consultations',
      data.consultations.map((k) =>
        joined([
          `${date(k.date)}: ${k.child}, ${pounds(k.amount)}`,
          k.assessment ? `assessment in ${joined(k.assessment.subjects) || 'no subject'}` : '',
          k.cancelled ? 'cancelled' : '',
        ]),
      ),
    ],
    ...bookingsBillingAndHistory(data),
  ];
}

/** A booking of no known family: the booking on each event it was on, its invoices and history. */
export function registrationSections(data: Omit<BookingDataExport, 'exportedAt'>): Sections {
  return bookingsBillingAndHistory(data);
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
  doc.text(
    'Every field is in export.json, beside this summary. Who made each change is named by role ("the agency", "the tutor").',
  );
  for (const [heading, items] of sections) {
    doc.moveDown().font('Helvetica-Bold').fontSize(12).text(heading);
    doc.font('Helvetica').fontSize(9);
    if (items.length === 0) doc.text('None');
    for (const item of items) doc.text(item);
  }
  return finish();
}
