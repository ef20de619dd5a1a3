import { randomUUID } from 'node:crypto';
import { HttpError } from '@agency/platform';
import type pg from 'pg';

export type StoredAnswer = { statusCode: number; body: unknown };

/** A claim held by one runner of a command: its token fences release and expiry. */
export type Claim = { claimed: true; owner: string; startedAt: Date; takenOver: boolean };

export type ClaimResult = Claim | { claimed: false; answer: StoredAnswer };

export type ProcessedCommandsOptions = {
  /** How long an unanswered claim is held before a retry may take it over (its runner is presumed dead). */
  leaseMs?: number;
  /** How long a repeat waits for the first delivery's answer before answering 409 command_in_progress. */
  waitMs?: number;
  pollMs?: number;
};

export const DEFAULT_LEASE_MS = 30_000;

/**
 * A command id is claimed before the command runs, so two deliveries of one action do not run
 * at once. The claim is a lease: a runner that crashed leaves an unanswered claim which a retry
 * takes over once the lease has run out (the command's events carry ids derived from the
 * command id, so a retry completes what is missing and appends nothing twice). A finished
 * command's answer is kept and replayed, and the first answer recorded wins. A claim is released
 * only when the command was refused before anything was appended, so the user can correct and
 * retry.
 */
export class ProcessedCommands {
  private readonly leaseMs: number;
  private readonly waitMs: number;
  private readonly pollMs: number;

  constructor(
    private readonly db: pg.Pool,
    options: ProcessedCommandsOptions = {},
  ) {
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.waitMs = options.waitMs ?? 10_000;
    this.pollMs = options.pollMs ?? 100;
  }

  async claim(commandId: string, userId: string, now: Date): Promise<ClaimResult> {
    const owner = randomUUID();
    const deadline = Date.now() + this.waitMs;
    for (;;) {
      const inserted = await this.db.query(
        `insert into command.processed_commands (command_id, user_id, started_at, lease_until, owner)
         values ($1, $2, $3, now() + $4 * interval '1 millisecond', $5) on conflict do nothing`,
        [commandId, userId, now, this.leaseMs, owner],
      );
      if (inserted.rowCount === 1) return { claimed: true, owner, startedAt: now, takenOver: false };
      const found = await this.db.query(
        `select user_id, status_code, response from command.processed_commands where command_id = $1`,
        [commandId],
      );
      const row = found.rows[0];
      if (!row) continue; // released meanwhile: claim it afresh
      if (row.user_id !== userId) throw new HttpError(409, 'command_id_in_use', 'This commandId was already used.');
      if (row.status_code !== null)
        return { claimed: false, answer: { statusCode: row.status_code, body: row.response } };
      // Unanswered: its runner is at work, or crashed. Past the lease, this delivery takes over.
      const taken = await this.db.query(
        `update command.processed_commands
            set lease_until = now() + $2 * interval '1 millisecond', owner = $3
          where command_id = $1 and status_code is null and coalesce(lease_until, '-infinity') <= now()
          returning coalesce(started_at, created_at) as started_at`,
        [commandId, this.leaseMs, owner],
      );
      if (taken.rowCount === 1) return { claimed: true, owner, startedAt: taken.rows[0].started_at, takenOver: true };
      if (Date.now() >= deadline) {
        throw new HttpError(409, 'command_in_progress', 'This action is still being processed. Please try again.');
      }
      await new Promise((resolve) => setTimeout(resolve, this.pollMs));
    }
  }

  /**
   * Records the answer unless one was recorded first (by a runner that took over a lapsed claim),
   * and returns the answer that stands: every delivery of one command id gets the same.
   */
  async complete(commandId: string, answer: StoredAnswer): Promise<StoredAnswer> {
    const recorded = await this.db.query(
      `update command.processed_commands set status_code = $2, response = $3, lease_until = null
        where command_id = $1 and status_code is null`,
      [commandId, answer.statusCode, JSON.stringify(answer.body)],
    );
    if (recorded.rowCount === 1) return answer;
    const found = await this.db.query(
      'select status_code, response from command.processed_commands where command_id = $1',
      [commandId],
    );
    const row = found.rows[0];
    if (!row || row.status_code === null) return answer;
    return { statusCode: row.status_code, body: row.response };
  }

  /** Only for a command refused before it appended anything; only by the claim's holder. */
  async release(commandId: string, owner: string) {
    await this.db.query(
      'delete from command.processed_commands where command_id = $1 and owner = $2 and status_code is null',
      [commandId, owner],
    );
  }

  /**
   * A command that failed after appending keeps its claim (it can never be released) but ends
   * its lease, so a retry completes it at once instead of waiting for the lease to run out.
   */
  async endLease(commandId: string, owner: string) {
    await this.db.query(
      `update command.processed_commands set lease_until = now()
        where command_id = $1 and owner = $2 and status_code is null`,
      [commandId, owner],
    );
  }
}
