import { comparePositions, type Position, parsePosition } from '@agency/platform';
import pg from 'pg';

const CHECKPOINT_CHANNEL = 'projection_checkpoint';

/**
 * Read-your-writes: knows how far the live projections have got (LISTEN on the checkpoint
 * channel, with a slow poll as fallback) and lets a command wait, boundedly, until they have
 * applied the position it appended.
 */
export class ProjectionWatch {
  private latest: Position = { commit: 0n, prepare: 0n };
  private waiters = new Set<{ position: Position; resolve: (reached: boolean) => void }>();
  private listener?: pg.Client;
  private poller?: NodeJS.Timeout;

  constructor(private readonly pool: pg.Pool) {}

  async start() {
    this.listener = new pg.Client(this.pool.options);
    this.listener.on('error', () => {});
    await this.listener.connect();
    this.listener.on('notification', (message) => {
      if (message.payload) this.advance(parsePosition(message.payload));
    });
    await this.listener.query(`listen ${CHECKPOINT_CHANNEL}`);
    await this.poll();
    this.poller = setInterval(() => this.waiters.size > 0 && this.poll(), 250);
  }

  private async poll() {
    const result = await this.pool
      .query('select commit_position, prepare_position from read.checkpoint')
      .catch(() => ({ rows: [] }));
    const row = result.rows[0];
    if (row) this.advance({ commit: BigInt(row.commit_position), prepare: BigInt(row.prepare_position) });
  }

  private advance(position: Position) {
    if (comparePositions(position, this.latest) > 0) this.latest = position;
    for (const waiter of this.waiters) {
      if (comparePositions(this.latest, waiter.position) >= 0) {
        this.waiters.delete(waiter);
        waiter.resolve(true);
      }
    }
  }

  waitFor(position: Position, timeoutMs = 5000): Promise<boolean> {
    if (comparePositions(this.latest, position) >= 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter = { position, resolve };
      this.waiters.add(waiter);
      setTimeout(() => {
        if (this.waiters.delete(waiter)) resolve(false);
      }, timeoutMs);
    });
  }

  async stop() {
    clearInterval(this.poller);
    for (const waiter of this.waiters) waiter.resolve(false);
    this.waiters.clear();
    await this.listener?.end().catch(() => {});
  }
}
