import { HttpError } from '@agency/platform';
import { type MatchExtended, ZxcvbnFactory } from '@zxcvbn-ts/core';
import { adjacencyGraphs, dictionary } from '@zxcvbn-ts/language-common';

export const TOO_COMMON_PASSWORD = 'This password is too common. Choose another.';

/** zxcvbn's score 2 starts at a million guesses: below it a password falls to a throttled guesser. */
const MIN_SCORE = 2;

// Built on first use (about 0.1 s): the lists stay on the server, never in the UI's bundle.
let checker: ZxcvbnFactory | undefined;
const zxcvbn = () => {
  checker ??= new ZxcvbnFactory({ dictionary, graphs: adjacencyGraphs });
  return checker;
};

const wholeCommonPassword = (sequence: MatchExtended[]) =>
  sequence.length === 1 && sequence[0]?.pattern === 'dictionary' && sequence[0].dictionaryName === 'passwords-common';

/**
 * The common-password rule (on top of the spec's 7 characters), decided by `@zxcvbn-ts/core`
 * with the `@zxcvbn-ts/language-common` lists (49,233 leaked passwords, 7,776 common words,
 * keyboard layouts), at the versions pinned in package-lock.json. A password is refused when
 *  - it is, as a whole, an entry of the common-password list, in any case, l33t or reversed
 *    spelling (`password1`, `qwerty123`, `P@ssw0rd`, `1q2w3e4r5t`); or
 *  - zxcvbn finds it in fewer than a million guesses (score 0 or 1): a common password or word
 *    with a few digits or a year (`letmein123`, `summer2024`), a keyboard walk, a sequence or a
 *    repeat (`abcdefg`, `aaaaaaa`).
 * The username and other personal words are not considered, so the answer depends on the
 * password alone.
 */
export function isTooCommon(password: string): boolean {
  const result = zxcvbn().check(password);
  return result.score < MIN_SCORE || wholeCommonPassword(result.sequence);
}

/** A 400 with the message on the `password` field (where the activation and reset forms show it). */
export function refuseCommonPassword(password: string) {
  if (isTooCommon(password))
    throw new HttpError(400, 'invalid_input', TOO_COMMON_PASSWORD, { password: TOO_COMMON_PASSWORD });
}
