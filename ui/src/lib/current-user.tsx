import { createContext, useContext } from 'react';

export type Role = 'admin' | 'partner' | 'tutor';

export type User = { id: string; username: string; role: Role; tutorId?: string; name?: string };

export const CurrentUserContext = createContext<User | null>(null);

/** The signed-in user; only available inside the guarded shell. */
export function useCurrentUser(): User {
  const user = useContext(CurrentUserContext);
  if (!user) throw new Error('useCurrentUser is used outside the signed-in shell');
  return user;
}

export const displayName = (user: User) => user.name || user.username;
