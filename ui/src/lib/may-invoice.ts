import type { User } from './current-user';

/**
 * Whether `user` may generate `tutorId`'s invoice: an admin for any tutor, a tutor or partner
 * only for themselves ('' — all tutors — is nobody's invoice).
 */
export const mayInvoiceFor = (user: User, tutorId: string) =>
  tutorId !== '' && (user.role === 'admin' || user.tutorId === tutorId);
