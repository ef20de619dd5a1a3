import { createHash, randomUUID } from 'node:crypto';
import { ERASED } from '@agency/contracts';
import { HttpError } from '@agency/platform';
import {
  isSealed,
  type PersonalDataVault,
  type Sealed,
  SubjectErased,
  UnreadableSealedValue,
} from '@agency/platform/personal-data';
import type pg from 'pg';

/**
 * A finished command's answer as it is kept: the handler's answer (a view the route names is asked
 * again on a replay, never kept), the position its events reached, and whether the read side
 * showed them when it answered.
 */
export type StoredAnswer = {
  statusCode: number;
  answer: Record<string, unknown>;
  position: string | null;
  visible: boolean;
};

/** A claim held by one runner of a command: its token fences release and expiry. */
export type Claim = { claimed: true; owner: string; startedAt: Date; takenOver: boolean };

export type ClaimResult = Claim | { claimed: false; answer: StoredAnswer };

export type ProcessedCommandsOptions = {
  /** How long an unanswered claim is held before a retry may take it over (its runner is presumed dead). */
  leaseMs?: number;
  /** How long a repeat waits for the first delivery's answer before answering 409 command_in_progress. */
  waitMs?: number;
  pollMs?: number;
  /**
   * The data subjects' keys: an answer holding anyone's personal data is kept sealed under them,
   * and the actions' fingerprints are keyed by the master key.
   */
  vault?: PersonalDataVault;
};

export const DEFAULT_LEASE_MS = 30_000;

/** The row's `response`: `sealed` (the answer under its subjects' keys) when `answer` is only its erased form. */
type Kept = { answer: Record<string, unknown>; sealed?: Sealed; position: string | null; visible: boolean };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * An answer as it reads once a subject in it is erased: its shape, its ids, numbers and flags,
 * every other text "Erased" (which of them were personal is not known, so none is kept).
 */
export function erasedForm(value: unknown): unknown {
  if (typeof value === 'string') return UUID.test(value) ? value : ERASED;
  if (Array.isArray(value)) return value.map(erasedForm);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, erasedForm(item)]));
  }
  return value;
}

/** JSON with every object's keys in one order: the same action sent twice reads the same. */
function canonicalJson(value: unknown): string {
  const sorted = (item: unknown): unknown => {
    if (Array.isArray(item)) return item.map(sorted);
    if (item && typeof item === 'object') {
      const entries = Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return Object.fromEntries(entries.map(([key, inner]) => [key, sorted(inner)]));
    }
    return item;
  };
  return JSON.stringify(sorted(JSON.parse(JSON.stringify(value ?? null))));
}

/** What a sealed answer is bound to: its own command id (a sealed answer copied to another row does not open). */
const placeOf = (commandId: string) => `answer:${commandId}`;

const ERASED_SUBJECT = Symbol('erased subject');

/**
 * A command id is claimed before the command runs, so two deliveries of one action do not run
 * at once. The claim is a lease: a runner that crashed leaves an unanswered claim which a retry
 * takes over once the lease has run out (the command's events carry ids derived from the
 * command id, so a retry completes what is missing and appends nothing twice). A finished
 * command's answer is kept and replayed, and the first answer recorded wins. A claim is released
 * only when the command was refused before anything was appended, so the user can correct and
 * retry.
 *
 * A command id names one action (docs/command-ids.md): the claim keeps the action's fingerprint,
 * and the id sent again with another route or body is refused, never replayed. A kept answer
 * holds no personal value in clear: one whose command recorded anyone's personal data is sealed
 * under each such subject's key, so erasing the subject (destroying its key) is what makes it
 * unreadable; a replay then answers its erased form.
 */
export class ProcessedCommands {
  private readonly leaseMs: number;
  private readonly waitMs: number;
  private readonly pollMs: number;
  private readonly vault: PersonalDataVault | undefined;

  constructor(
    private readonly db: pg.Pool,
    options: ProcessedCommandsOptions = {},
  ) {
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.waitMs = options.waitMs ?? 10_000;
    this.pollMs = options.pollMs ?? 100;
    this.vault = options.vault;
  }

  /**
   * The action a command id stands for: its route and what it sends (key order aside). Keyed by
   * the master key, so a copy of the database cannot confirm a guessed body (a new login's
   * password is in one); without keys, the events are in clear anyway.
   */
  fingerprint(route: string, sent: unknown): string {
    const action = `${route}\u0000${canonicalJson(sent)}`;
    return this.vault
      ? this.vault.digest('command-fingerprint', action)
      : createHash('sha256').update(action).digest('base64url');
  }

  async claim(commandId: string, userId: string, fingerprint: string, now: Date): Promise<ClaimResult> {
    const owner = randomUUID();
    const deadline = Date.now() + this.waitMs;
    for (;;) {
      const inserted = await this.db.query(
        `insert into command.processed_commands (command_id, user_id, started_at, lease_until, owner, fingerprint)
         values ($1, $2, $3, now() + $4 * interval '1 millisecond', $5, $6) on conflict do nothing`,
        [commandId, userId, now, this.leaseMs, owner, fingerprint],
      );
      if (inserted.rowCount === 1) return { claimed: true, owner, startedAt: now, takenOver: false };
      const found = await this.db.query(
        `select user_id, fingerprint, status_code, response from command.processed_commands where command_id = $1`,
        [commandId],
      );
      const row = found.rows[0];
      if (!row) continue; // released meanwhile: claim it afresh
      if (row.user_id !== userId) throw new HttpError(409, 'command_id_in_use', 'This commandId was already used.');
      // A claim from before fingerprints were kept names no action: it is taken as this one.
      if (row.fingerprint !== null && row.fingerprint !== fingerprint) {
        throw new HttpError(
          422,
          'command_id_reused',
          'This commandId was used for another action. Send this action with a new commandId.',
          { commandId: 'Used for another action' },
        );
      }
      if (row.status_code !== null) return { claimed: false, answer: await this.open(commandId, row) };
      // Unanswered: its runner is at work, or crashed. Past the lease, this delivery takes over.
      const taken = await this.db.query(
        `update command.processed_commands
            set lease_until = now() + $2 * interval '1 millisecond', owner = $3, fingerprint = coalesce(fingerprint, $4)
          where command_id = $1 and status_code is null and coalesce(lease_until, '-infinity') <= now()
          returning coalesce(started_at, created_at) as started_at`,
        [commandId, this.leaseMs, owner, fingerprint],
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
   * and returns the answer that stands: every delivery of one command id gets the same (this very
   * object when it is this one's). `subjects`: whose personal data the command recorded.
   */
  async complete(commandId: string, answer: StoredAnswer, subjects: readonly string[]): Promise<StoredAnswer> {
    const kept = await this.keep(commandId, answer, subjects);
    const recorded = await this.db.query(
      `update command.processed_commands set status_code = $2, response = $3, lease_until = null
        where command_id = $1 and status_code is null`,
      [commandId, answer.statusCode, JSON.stringify(kept)],
    );
    if (recorded.rowCount === 1) {
      // A subject erased while the command ran: this delivery gets what every later one will.
      const erasedMeanwhile = this.vault && subjects.length > 0 && !kept.sealed;
      return erasedMeanwhile ? { ...answer, answer: kept.answer } : answer;
    }
    const found = await this.db.query(
      'select status_code, response from command.processed_commands where command_id = $1',
      [commandId],
    );
    const row = found.rows[0];
    if (!row || row.status_code === null) return answer;
    return this.open(commandId, row);
  }

  /**
   * What is kept of an answer: itself when the command recorded no one's personal data (or there
   * are no keys: then the events hold theirs in clear too); otherwise its erased form, and the
   * answer sealed under each subject's key in turn. A subject erased while the command ran leaves
   * only the erased form.
   */
  private async keep(commandId: string, answer: StoredAnswer, subjects: readonly string[]): Promise<Kept> {
    const plain = JSON.parse(JSON.stringify(answer.answer ?? {})) as Record<string, unknown>;
    const kept = { position: answer.position, visible: answer.visible };
    if (!this.vault || subjects.length === 0) return { ...kept, answer: plain };
    const erased = erasedForm(plain) as Record<string, unknown>;
    let sealed: unknown = plain;
    try {
      for (const subject of [...new Set(subjects)].sort()) {
        sealed = await this.vault.encrypt(subject, sealed, placeOf(commandId));
      }
    } catch (error) {
      if (error instanceof SubjectErased) return { ...kept, answer: erased };
      throw error;
    }
    return { ...kept, answer: erased, sealed: sealed as Sealed };
  }

  /** A kept answer, opened: its erased form when a subject's key is gone. */
  private async open(commandId: string, row: { status_code: number; response: Kept }): Promise<StoredAnswer> {
    const kept = row.response;
    let answer: unknown = kept.sealed ?? kept.answer;
    while (isSealed(answer)) {
      if (!this.vault) throw new Error('A kept answer is sealed, and there are no keys to open it');
      try {
        answer = await this.vault.decrypt(answer, placeOf(commandId), () => ERASED_SUBJECT);
      } catch (error) {
        if (!(error instanceof UnreadableSealedValue)) throw error;
        throw new HttpError(
          503,
          'unreadable_answer',
          'This action was done, but its answer cannot be read at the moment. Please reload the page.',
        );
      }
      if (answer === ERASED_SUBJECT) answer = kept.answer;
    }
    return {
      statusCode: row.status_code,
      answer: answer as Record<string, unknown>,
      position: kept.position ?? null,
      visible: kept.visible ?? true,
    };
  }

  /**
   * Answers kept before answers were kept this way held personal values in clear: each keeps only
   * its erased form (shape, ids, numbers and flags). Run at start; a second run finds none.
   */
  async forgetClearAnswers(batch = 500) {
    for (;;) {
      const { rows } = await this.db.query<{ command_id: string; response: Record<string, unknown> }>(
        `select command_id, response from command.processed_commands
          where response is not null and not response ? 'answer' limit $1`,
        [batch],
      );
      for (const { command_id, response } of rows) {
        const { position = null, visible = true, ...answer } = response;
        await this.db.query(
          `update command.processed_commands set response = $2 where command_id = $1 and not response ? 'answer'`,
          [command_id, JSON.stringify({ answer: erasedForm(answer), position, visible })],
        );
      }
      if (rows.length < batch) return;
    }
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
