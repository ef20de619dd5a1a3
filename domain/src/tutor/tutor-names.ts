/** The pure rule for a new tutor's suggested username and invoice prefix. */

const letters = (text: string) =>
  text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9]/g, '');

export type TakenNames = { usernames: ReadonlySet<string>; prefixes: ReadonlySet<string> };

/**
 * Username: first initial + last name, lower case, letters and digits only (Jane O'Brien →
 * jobrien); if taken, the full first name + last name, then a number. Invoice prefix: the
 * initials in upper case (JO); if taken, more letters of the last name (JOB, JOBR…), then a
 * number. `taken` holds every name ever used (lower-case usernames, upper-case prefixes).
 */
export function suggestTutorNames(firstName: string, lastName: string, taken: TakenNames) {
  const first = letters(firstName) || 'tutor';
  const last = letters(lastName) || 'tutor';

  const usernameCandidates = [`${first[0]}${last}`, `${first}${last}`].map((name) => name.toLowerCase().slice(0, 40));
  let username = usernameCandidates.find((candidate) => !taken.usernames.has(candidate));
  for (let n = 2; !username; n++) {
    const candidate = `${usernameCandidates[0]}${n}`;
    if (!taken.usernames.has(candidate)) username = candidate;
  }

  const prefixCandidates: string[] = [];
  for (let length = 1; length <= Math.min(last.length, 8); length++) {
    prefixCandidates.push(`${first[0]}${last.slice(0, length)}`.toUpperCase());
  }
  let prefix = prefixCandidates.find((candidate) => !taken.prefixes.has(candidate));
  for (let n = 2; !prefix; n++) {
    const candidate = `${prefixCandidates[0]}${n}`;
    if (!taken.prefixes.has(candidate)) prefix = candidate;
  }
  return { username, prefix };
}
