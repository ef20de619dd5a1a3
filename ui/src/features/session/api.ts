import type { SessionAnswer } from '@agency/contracts';
import type { User } from '../../lib/current-user';
import { getJson, postJson } from '../../lib/http';

export const fetchCurrentUser = (signal?: AbortSignal) =>
  getJson<SessionAnswer>('/auth/local/me', signal).then(
    (answer): User => ({ ...answer.user, agencyTimeZone: answer.agency.timeZone }),
  );

let askedEarly: Promise<User> | undefined;

/**
 * Asks who is signed in while the signed-in shell's scripts are still on their way (the router
 * calls this as it starts loading them), so the first page does not wait for one after the other.
 */
export function askCurrentUserEarly() {
  askedEarly = fetchCurrentUser();
  // Its failure is the shell's to show, when it takes the answer.
  askedEarly.catch(() => undefined);
}

/** The answer asked for early, once; later loads (a retry, the next sign-in) ask again. */
export function takeCurrentUserAskedEarly(): Promise<User> | undefined {
  const answer = askedEarly;
  askedEarly = undefined;
  return answer;
}

export async function login(credentials: { username: string; password: string }): Promise<User> {
  const answer = await postJson<{ token?: string; user: User }>('/auth/local', credentials);
  return answer.user;
}

export const keepalive = () => postJson<{ ok: true }>('/auth/local/keepalive');

/** Ends the session on the server (which clears the cookie) and forgets the token here too. */
export async function logout(): Promise<void> {
  try {
    await postJson<{ ok: true }>('/auth/local/logout');
  } finally {
    // biome-ignore lint/suspicious/noDocumentCookie: the spec asks for the token cookie to be deleted on logout
    document.cookie = 'token=; Max-Age=0; path=/';
  }
}

/** The username an activation link was sent for (null for a code that cannot activate). */
export const activationUsername = (code: string, signal?: AbortSignal) =>
  getJson<{ username: string | null }>(`/auth/local/activation?${new URLSearchParams({ code })}`, signal).then(
    (answer) => answer.username,
  );

export async function activate(body: { activationCode: string; username: string; password: string }): Promise<User> {
  const answer = await postJson<{ token?: string; user: User }>('/auth/local/activate', body);
  return answer.user;
}

/** Answers the success flag; a 429 is the too-many-attempts answer. */
export const requestPasswordReset = (username: string) =>
  postJson<{ success: boolean }>('/auth/local/reset', { username });

export async function setNewPassword(body: { resetToken: string; password: string }): Promise<User> {
  const answer = await postJson<{ token?: string; user: User }>('/auth/local/password', body);
  return answer.user;
}
