/**
 * Another writer kept winning the stream: the decision was read and made again as many times as
 * the retry policy allows, and nothing of this step was appended. The answer is a 409.
 */
export class ConcurrentChange extends Error {
  constructor(
    readonly streamId: string,
    readonly attempts: number,
  ) {
    super(`${streamId}: another writer won ${attempts} times in a row`);
    this.name = 'ConcurrentChange';
  }
}

/**
 * The one retry policy: a decision the store refused because the stream moved (a wrong expected
 * revision) is read and decided again, at most this many times. Each lost race lets another
 * command win, so a few more tries than writers at once land them all; a stream that many commands
 * write at once (the agency-wide number sequence, a workshop's places under public booking) is
 * named `contended` by the command and gets room for that many writers.
 */
export const CONFLICT_ATTEMPTS = { usual: 8, contended: 200 } as const;

export type Contention = keyof typeof CONFLICT_ATTEMPTS;
