import { z } from 'zod';
import {
  contactViewFields,
  listOrder,
  nameSearch,
  PAGE_SIZE,
  pageAnswer,
  pageQuery,
  queryId,
  yesFlag,
} from './query-values';

/**
 * `GET /api/clients?includeInactive&tutor&q&sort&order&limit&cursor`: active families
 * (`includeInactive=Y`: all), optionally those a tutor teaches, or those with a contact or a child
 * of the name searched (`q`), by name (or by `sort`), a page at a time (250 by default, at most
 * 1000; `cursor` is the previous page's `nextCursor`).
 */
export const clientListQuery = z.object({
  includeInactive: yesFlag,
  tutor: queryId.optional(),
  q: nameSearch,
  ...listOrder(['name', 'email', 'students']),
  ...pageQuery(PAGE_SIZE.clients),
});
export type ClientListQuery = z.input<typeof clientListQuery>;

export const clientListItem = z.object({
  id: z.string(),
  name: z.string(),
  address: z.string(),
  phone: z.string(),
  email: z.string(),
  students: z.number(),
  active: z.boolean(),
});
export type ClientListItem = z.infer<typeof clientListItem>;
/** This page's families; `total` counts the whole list's, `nextCursor` asks for the next page (null: none). */
export const clientListAnswer = z.object({ clients: z.array(clientListItem), ...pageAnswer });
export type ClientListAnswer = z.infer<typeof clientListAnswer>;

/** A client's id in a path (`all` for every child, staff only). */
export const clientParams = z.object({ id: queryId });

export const studentView = z.object({
  id: z.string(),
  clientId: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  /** Admins (and auditors) only (visibility.ts); null once the family is erased. */
  dob: z.string().nullable().optional(),
  name: z.string(),
});
export type StudentView = z.infer<typeof studentView>;
export const clientChildrenAnswer = z.object({ children: z.array(studentView) });
export type ClientChildrenAnswer = z.infer<typeof clientChildrenAnswer>;

/** A contact as the queries answer it: a family's (with `clientId`) or a tutor's (with `tutorId`). */
export const contactView = z.object({
  id: z.string(),
  clientId: z.string().optional(),
  tutorId: z.string().optional(),
  ...contactViewFields,
  /** Admins (and auditors) only (visibility.ts). */
  dob: z.string().nullable().optional(),
});
export type ContactView = z.infer<typeof contactView>;

/** `dob`: admins (and auditors) only (visibility.ts); null once the family is erased. */
export const childView = z.object({
  id: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  dob: z.string().nullable().optional(),
});
export type ChildView = z.infer<typeof childView>;

export const clientView = z.object({
  id: z.string(),
  startDate: z.string(),
  active: z.boolean(),
  /** The family's personal data was erased: nothing of it is left to change. */
  erased: z.boolean(),
  contacts: z.array(contactView),
  children: z.array(childView),
});
export type ClientView = z.infer<typeof clientView>;
export const clientAnswer = z.object({ client: clientView });
export type ClientAnswer = z.infer<typeof clientAnswer>;

export const contactParams = z.object({ id: queryId });
export const contactAnswer = z.object({ contact: contactView });
export type ContactAnswer = z.infer<typeof contactAnswer>;
