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

const ofFamily = (data: EventData) => familySubject(String(data.clientId));
const ofTutor = (data: EventData) => tutorSubject(String(data.tutorId));
/** A tutor's login is the tutor's personal data; an office login is its own subject. */
const ofLogin = (data: EventData) =>
  typeof data.tutorId === 'string' ? tutorSubject(data.tutorId) : `user:${String(data.userId)}`;

export const personalDataRules: Readonly<Record<string, PersonalDataRule>> = {
  ClientRegistered: { subjectOf: ofFamily, fields: contactFields('contact') },
  ContactAdded: { subjectOf: ofFamily, fields: contactFields('contact') },
  ContactDetailsChanged: { subjectOf: ofFamily, fields: contactFields('contact') },
  ChildAdded: { subjectOf: ofFamily, fields: childFields },
  ChildDetailsChanged: { subjectOf: ofFamily, fields: childFields },
  TutorRegistered: { subjectOf: ofTutor, fields: [...contactFields('contact'), username('username')] },
  TutorDetailsChanged: { subjectOf: ofTutor, fields: contactFields('contact') },
  TutorActivationEmailSent: { subjectOf: ofTutor, fields: [text('sentTo')] },
  TutorAccountActivated: { subjectOf: ofTutor, fields: [username('username')] },
  UserRegistered: { subjectOf: ofLogin, fields: [text('name'), username('username')] },
};
