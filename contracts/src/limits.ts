/**
 * Every bound on what enters the product, in one place. The contract schemas check them at the
 * door and the deciders in `domain` check them again, so an event that is stored can always be
 * projected (no read-model column overflows, no date PostgreSQL refuses). docs/limits.md lists
 * them for people; change both together.
 */
export const LIMITS = {
  /** A lesson's amount, a payment: £100,000 (in pence). */
  maxMoneyPence: 10_000_000,
  /** An hourly rate: £10,000 (in pence). */
  maxRatePence: 1_000_000,
  /** A lesson's duration: 24 hours (in hundredths of an hour). */
  maxDurationHundredths: 2_400,
  /** Percentages 0–100 (in basis points). */
  maxBasisPoints: 10_000,
  /** Calendar dates, inclusive. */
  minDate: '1900-01-01',
  maxDate: '2100-12-31',
  minYear: 1900,
  maxYear: 2100,
  /** A number typed as text (`"£1,234.50"`), before any other check. */
  maxNumericLength: 32,
  /** Names, address lines, postcodes, e-mail addresses and other free text. */
  maxTextLength: 200,
  /** An e-mail address (RFC 5321's path limit). */
  maxEmailLength: 254,
  /** A login's username; a tutor's username is 40 at most. */
  maxUsernameLength: 100,
  maxTutorUsernameLength: 40,
  /** A password: argon2 on a megabyte is a denial of service. */
  maxPasswordLength: 200,
  /** An activation code or reset token. */
  maxCodeLength: 200,
  /** An id sent by a client (UUIDs; invoice ids are `{tutorId}_{yyyy-mm}`). */
  maxIdLength: 128,
  maxAddressLines: 4,
  maxPhoneNumbers: 2,
  maxPhoneTypeLength: 20,
  maxPhoneNumberLength: 40,
  maxInvoicePrefixLength: 10,
  /** The agency's red bank-account notice. */
  maxNoticeLength: 500,
  /** The days an invoice gives to pay. */
  maxPaymentTermsDays: 365,
  /** Lessons a day with one student (the spec's 12 hours a day, in hundredths). */
  maxHoursADayWithOneStudent: 12,
  /** A workshop event: its length in minutes (a day), its places (children), the lines of one invoice. */
  maxWorkshopMinutes: 1_440,
  maxWorkshopCapacity: 500,
  maxChildrenPerBooking: 10,
  /**
   * A public booking (nobody signed in): its children, and the places one e-mail address may hold
   * on one event across its bookings; an admin booking on a parent's behalf takes up to
   * `maxChildrenPerBooking`. See docs/limits.md, "Public bookings".
   */
  maxChildrenPerPublicBooking: 6,
  maxPlacesPerEmailPerEvent: 6,
  /** The places an event's waiting list holds: past it a booking is refused ("the waiting list is full"). */
  maxWaitingListPlaces: 30,
  /** How long a public booking's e-mailed confirmation link holds its places, in minutes. */
  bookingHoldMinutes: 60,
  maxRegistrationsPerInvoice: 100,
  /** A child's allergies and a booking's comments. */
  maxAllergiesLength: 500,
  maxCommentsLength: 1_000,
  /** Public bookings per e-mail address and per client address in an hour. */
  maxBookingsPerEmailAnHour: 5,
  maxBookingsPerAddressAnHour: 20,
  /** A request body, in bytes: bigger is 413. */
  maxBodyBytes: 65_536,
  /**
   * A CSV file brought in by `POST /api/import` (docs/import.md): its text in characters, and its
   * rows under the header. That route alone takes a body up to `maxImportBodyBytes`.
   */
  maxImportCharacters: 4_000_000,
  maxImportRows: 10_000,
  maxImportBodyBytes: 10_485_760,
  /** Request and connection time-outs of both services, in milliseconds. */
  requestTimeoutMs: 30_000,
  connectionTimeoutMs: 60_000,
  keepAliveTimeoutMs: 5_000,
  /** Live-update streams (GET /api/live) open at once: per session (tabs of one sign-in), per user, in all. */
  maxLiveStreamsPerSession: 4,
  maxLiveStreamsPerUser: 8,
  maxLiveStreams: 200,
  /** A live-update stream is closed after this long; the browser opens another at once. */
  liveStreamMaxAgeMs: 600_000,
  /** How often the sessions of all open streams are checked (one query) and a keep-alive is sent. */
  liveStreamTickMs: 25_000,
  /** The longest period the activity log answers for at once, in days (both ends included). */
  maxActivityDays: 31,
} as const;

/**
 * A decimal number typed as text, checked in linear time: at most `maxNumericLength`
 * characters, an optional sign, digits with at most one decimal point. The pattern has no
 * ambiguous split between two runs of digits, so it cannot backtrack quadratically.
 */
const DECIMAL_TEXT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;

export function isDecimalText(text: string): boolean {
  return text.length <= LIMITS.maxNumericLength && DECIMAL_TEXT.test(text);
}

/**
 * One e-mail address, never a list: a local part and a domain around a single `@`, with no
 * space, comma, semicolon, angle bracket or other character that separates or quotes addresses
 * (activation and reset links go to exactly this address). Linear: neither part can hold `@`.
 */
const SINGLE_EMAIL = /^[^\s@,;<>()[\]"\\:]+@[^\s@,;<>()[\]"\\:]+$/;

export const SINGLE_EMAIL_MESSAGE = 'Enter one email address (like name@example.com)';

export const isSingleEmailAddress = (text: string) => SINGLE_EMAIL.test(text);

/** `YYYY-MM-DD` within the product's calendar (1900-01-01 … 2100-12-31). Strings compare as dates. */
export const isDateInRange = (date: string) => date >= LIMITS.minDate && date <= LIMITS.maxDate;
