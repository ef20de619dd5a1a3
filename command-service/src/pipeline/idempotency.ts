import { HttpError } from '@agency/platform';
import type pg from 'pg';

export type StoredAnswer = { statusCode: number; body: unknown };

/**
 * A command id is claimed before the command runs, so two deliveries of one action cannot both
 * append. A finished command's answer is kept and replayed; a refused one releases its claim so
 * the user can correct and retry.
 */
export class ProcessedCommands {
  constructor(private readonly db: pg.Pool) {}

  async claim(
    commandId: string,
    userId: string,
  ): Promise<{ claimed: true } | { claimed: false; answer: StoredAnswer }> {
    const inserted = await this.db.query(
      'insert into command.processed_commands (command_id, user_id) values ($1, $2) on conflict do nothing',
      [commandId, userId],
    );
    if (inserted.rowCount === 1) return { claimed: true };
    for (let attempt = 0; attempt < 100; attempt++) {
      const found = await this.db.query(
        'select user_id, status_code, response from command.processed_commands where command_id = $1',
        [commandId],
      );
      const row = found.rows[0];
      if (!row) return this.claim(commandId, userId);
      if (row.user_id !== userId) throw new HttpError(409, 'command_id_in_use', 'This commandId was already used.');
      if (row.status_code !== null)
        return { claimed: false, answer: { statusCode: row.status_code, body: row.response } };
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new HttpError(409, 'command_in_progress', 'This action is still being processed. Please try again.');
  }

  async complete(commandId: string, answer: StoredAnswer) {
    await this.db.query('update command.processed_commands set status_code = $2, response = $3 where command_id = $1', [
      commandId,
      answer.statusCode,
      JSON.stringify(answer.body),
    ]);
  }

  async release(commandId: string) {
    await this.db.query('delete from command.processed_commands where command_id = $1 and status_code is null', [
      commandId,
    ]);
  }
}
