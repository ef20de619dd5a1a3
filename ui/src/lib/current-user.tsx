import { type Role, readsEveryTutor } from '@agency/contracts/role-rules';
import { todayIn } from '@agency/domain/shared/calendar';
import { createContext, useContext } from 'react';

export type { Role };

export type User = {
  id: string;
  username: string;
  role: Role;
  tutorId?: string;
  name?: string;
  /** The agency's time zone (the server's TZ), for "today" on the screens. */
  agencyTimeZone?: string;
};

export const CurrentUserContext = createContext<User | null>(null);

/** The signed-in user; only available inside the guarded shell. */
export function useCurrentUser(): User {
  const user = useContext(CurrentUserContext);
  if (!user) throw new Error('useCurrentUser is used outside the signed-in shell');
  return user;
}

export const displayName = (user: User) => user.name || user.username;

/**
 * The office (admins, partners, auditors): every tutor's data, with a tutor selector. Changing
 * things is another rule: create and edit buttons show for `role === 'admin'` only (or when the
 * server says so, as `canAddLessons`), so an auditor sees every screen and no button that changes.
 */
export const isOffice = (user: User) => readsEveryTutor(user.role);

/** Today's date (YYYY-MM-DD) in the agency's time zone, not the browser's. */
export function useAgencyToday(): string {
  return todayIn(useCurrentUser().agencyTimeZone ?? 'Europe/London', new Date());
}
