import type { EventData } from './upcasters';

/**
 * Which fields of which events are personal data, and whose (docs/personal-data.md). The event
 * store's personal-data layer (platform/src/personal-data) encrypts these fields under the data
 * subject's own key as events are appended and decrypts them as events are read; everything else
 * (ids, dates, amounts, rates, references) stays in clear. A field of a subject whose key was
 * destroyed (erasure) reads as its `erased` value, shaped like the field so payloads stay valid.
 */
export const ERASED = 'Erased';

/** A personal field: its path in the payload and what it reads as once its subject is erased. */
export type PersonalField = { path: readonly string[]; erased: (subject: string) => unknown };

export type PersonalDataRule = {
  /** The data subject whose key encrypts this event's personal fields. */
  subjectOf: (data: EventData) => string;
  fields: readonly PersonalField[];
  /**
   * An accounting copy: its key is kept after the family's erasure until the retention period
   * (RETENTION_YEARS, 6 by default) has run from this date, then shredded by the daily job.
   */
  retainedFrom?: (data: EventData) => string;
  /** With `retainedFrom`: whose erasure lets the accounting key go once its retention has run. */
  ownerOf?: (data: EventData) => string;
};

const text = (...path: string[]): PersonalField => ({ path, erased: () => ERASED });
/** A username reads as `erased-` and its subject's id, so it stays unique where usernames must be. */
const username = (...path: string[]): PersonalField => ({
  path,
  erased: (subject) => `erased-${subject.replace(/^user:/, '')}`,
});

/** A contact's personal fields (its `id` stays in clear: rows are found by it). */
const contactFields = (at: string): PersonalField[] => [
  text(at, 'firstName'),
  text(at, 'lastName'),
  { path: [at, 'address'], erased: () => [ERASED] },
  text(at, 'postcode'),
  text(at, 'email'),
  { path: [at, 'phone'], erased: () => [] },
  { path: [at, 'dob'], erased: () => null },
];

const childFields: PersonalField[] = [
  text('child', 'firstName'),
  text('child', 'lastName'),
  { path: ['child', 'dob'], erased: () => null },
];

/** A family's subject id is its client id; a tutor's its tutor id; another login's `user:{id}`. */
export const familySubject = (clientId: string) => clientId;
export const tutorSubject = (tutorId: string) => tutorId;
/** The accounting key of a family's invoice billing details, apart from the family's own key. */
export const familyBillingSubject = (clientId: string) => `family-invoice-billing:${clientId}`;

/**
 * A workshop registration's subject: its family when the booking's e-mail is a family's contact,
 * otherwise the registration itself (a public booking of no known family).
 */
export const registrationSubject = (data: EventData) =>
  typeof data.clientId === 'string' ? familySubject(data.clientId) : `registration:${String(data.registrationId)}`;

const ofFamily = (data: EventData) => familySubject(String(data.clientId));
const ofTutor = (data: EventData) => tutorSubject(String(data.tutorId));
/** A tutor's login is the tutor's personal data; an office login is its own subject. */
const ofLogin = (data: EventData) =>
  typeof data.tutorId === 'string' ? tutorSubject(data.tutorId) : `user:${String(data.userId)}`;

/** A booking's personal fields: the booker and the children; `places` stays in clear for the capacity. */
const bookingFields: PersonalField[] = [
  ...['firstName', 'lastName', 'postcode', 'email', 'phone'].map((name) => text('contact', name)),
  { path: ['contact', 'address'], erased: () => [ERASED] },
  // Names, schools and allergies (health data).
  { path: ['children'], erased: () => [] },
  text('comments'),
];

export const personalDataRules: Readonly<Record<string, PersonalDataRule>> = {
  ClientRegistered: { subjectOf: ofFamily, fields: contactFields('contact') },
  ContactAdded: { subjectOf: ofFamily, fields: contactFields('contact') },
  ContactDetailsChanged: { subjectOf: ofFamily, fields: contactFields('contact') },
  FamilyEmailChangeRequested: { subjectOf: ofFamily, fields: [text('email')] },
  FamilyEmailChangeDecided: { subjectOf: ofFamily, fields: [text('email')] },
  ChildAdded: { subjectOf: ofFamily, fields: childFields },
  ChildDetailsChanged: { subjectOf: ofFamily, fields: childFields },
  TutorRegistered: { subjectOf: ofTutor, fields: [...contactFields('contact'), username('username')] },
  TutorDetailsChanged: { subjectOf: ofTutor, fields: contactFields('contact') },
  TutorActivationEmailSent: { subjectOf: ofTutor, fields: [text('sentTo')] },
  TutorAccountActivated: { subjectOf: ofTutor, fields: [username('username')] },
  UserRegistered: { subjectOf: ofLogin, fields: [text('name'), username('username')] },
  WorkshopRegistrationMade: { subjectOf: registrationSubject, fields: bookingFields },
  // Of no family until the address confirms it, so always its own subject.
  WorkshopBookingRequested: { subjectOf: registrationSubject, fields: bookingFields },
  // A tutor's bank account: every field, so an erased tutor can no longer be paid into it (docs/money-models.md).
  TutorBankDetailsSet: {
    subjectOf: ofTutor,
    fields: [text('accountName'), text('sortCode'), text('accountNumber'), text('rollNumber')],
  },
  FamilyInvoiceIssued: {
    subjectOf: (data) => familyBillingSubject(String(data.clientId)),
    fields: [
      { path: ['billing'], erased: () => ({ name: ERASED, address: [ERASED], postcode: ERASED, email: ERASED }) },
      // The children and tutors a lessons invoice's lines name (absent on other invoices).
      { path: ['names'], erased: () => [] },
    ],
    retainedFrom: (data) => String(data.date),
    // A workshop invoice of no known family is billed to `registration:{id}`, the booking's own subject.
    ownerOf: (data) => familySubject(String(data.clientId)),
  },
};
