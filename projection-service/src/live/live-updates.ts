import { nonJsonAnswer, type SessionUser } from '@agency/contracts';
import { comparePositions, type EventStore, type Position } from '@agency/platform';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { CHECKPOINT_CHANNEL } from '../projection-runner';
import { requireSignIn } from '../signed-in';

/** What one NOTIFY of the checkpoint channel changed: the read models that moved, and whose data. */
export type Change = {
  readModels: string[];
  /** The tutors whose lessons, invoices or engagements the new events name. */
  tutorIds: string[];
  /** Too many events to tell whose they were: everyone is told. */
  everyone: boolean;
};

type Subscriber = { user: SessionUser; send: (change: Change) => void };

const EVENTS_READ_AT_MOST = 500;

const positionOf = (row: { commit_position: string; prepare_position: string }): Position => ({
  commit: BigInt(row.commit_position),
  prepare: BigInt(row.prepare_position),
});

/**
 * What a caller may hear of a change: staff every read model that moved (with no tutor named);
 * a tutor only a change to their own data. Nothing at all otherwise.
 */
export function changeFor(user: SessionUser, change: Change): { readModels: string[] } | null {
  if (user.role !== 'tutor') return { readModels: change.readModels };
  if (change.everyone || (user.tutorId && change.tutorIds.includes(user.tutorId))) {
    return { readModels: change.readModels };
  }
  return null;
}

/**
 * One LISTEN on the projection runner's checkpoint channel for every open stream of this
 * service: on each notification it reads which projections' checkpoints moved and the events
 * they moved over (from the event store), and tells each subscriber what it may know.
 */
export class CheckpointHub {
  private readonly subscribers = new Set<Subscriber>();
  private listener: pg.Client | null = null;
  private seen = new Map<string, Position>();
  private reading = false;
  private again = false;

  constructor(
    private readonly databaseUrl: string,
    private readonly db: pg.Pool,
    private readonly store: EventStore,
  ) {}

  async subscribe(subscriber: Subscriber): Promise<() => void> {
    this.subscribers.add(subscriber);
    if (!this.listener) {
      // The positions already applied are not news to anyone.
      this.seen = await this.checkpoints();
      const listener = new pg.Client({ connectionString: this.databaseUrl });
      this.listener = listener;
      listener.on('error', () => this.dropListener(listener));
      listener.on('notification', () => this.changed());
      await listener.connect();
      await listener.query(`listen ${CHECKPOINT_CHANNEL}`);
    }
    return () => {
      this.subscribers.delete(subscriber);
      if (this.subscribers.size === 0 && this.listener) this.dropListener(this.listener);
    };
  }

  async close() {
    this.subscribers.clear();
    if (this.listener) await this.dropListener(this.listener);
  }

  private async dropListener(listener: pg.Client) {
    if (this.listener === listener) this.listener = null;
    await listener.end().catch(() => undefined);
  }

  private async checkpoints(): Promise<Map<string, Position>> {
    const result = await this.db.query(
      'select name, commit_position::text, prepare_position::text from projection_checkpoints',
    );
    return new Map(result.rows.map((row) => [row.name as string, positionOf(row)]));
  }

  /** Notifications that arrive while one is read are folded into one more read. */
  private async changed() {
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = true;
    try {
      do {
        this.again = false;
        const change = await this.readChange();
        if (change) for (const subscriber of this.subscribers) subscriber.send(change);
      } while (this.again);
    } catch {
      // A failed read (a rebuild swapping the schema): the next notification reads again.
    } finally {
      this.reading = false;
    }
  }

  private async readChange(): Promise<Change | null> {
    const now = await this.checkpoints();
    const moved = [...now].filter(([name, position]) => {
      const before = this.seen.get(name);
      return !before || comparePositions(position, before) > 0;
    });
    if (moved.length === 0) return null;
    // From the least of the moved checkpoints; a projection new to this hub moved from the start.
    const before = moved.map(([name]) => this.seen.get(name));
    const from = before.includes(undefined)
      ? undefined
      : (before as Position[]).reduce((a, b) => (comparePositions(a, b) <= 0 ? a : b));
    const upTo = moved.map(([, position]) => position).reduce((a, b) => (comparePositions(a, b) > 0 ? a : b));
    this.seen = now;
    const events = from
      ? (await this.store.readAll({ from, limit: EVENTS_READ_AT_MOST })).filter(
          (event) => comparePositions(event.position, upTo) <= 0,
        )
      : [];
    const tutorIds = new Set<string>();
    for (const event of events) {
      // An event that cannot be read names no tutor: its change still reaches everyone it may concern.
      if (event.readError) return { readModels: moved.map(([name]) => name).sort(), tutorIds: [], everyone: true };
      const tutorId = (event.data as { tutorId?: unknown } | null)?.tutorId;
      if (typeof tutorId === 'string') tutorIds.add(tutorId);
    }
    return {
      readModels: moved.map(([name]) => name).sort(),
      tutorIds: [...tutorIds],
      everyone: !from || events.length >= EVENTS_READ_AT_MOST,
    };
  }
}

/**
 * GET /api/live: server-sent events, one `change` event (`{ readModels }`) each time
 * a read model the caller may see has moved, so open screens reload without polling. The
 * session is checked again with every keep-alive comment; an ended one closes the stream.
 */
export async function liveUpdates(
  app: FastifyInstance,
  { hub, keepAliveMs = 25_000 }: { hub: CheckpointHub; keepAliveMs?: number },
) {
  app.addHook('onClose', () => hub.close());
  requireSignIn(app);
  // No parameters; the answer is a text/event-stream of `change` events, not JSON.
  const stream = nonJsonAnswer(
    'text/event-stream',
    'Server-sent `change` events naming what changed, as the caller may see it',
  );
  app.get('/api/live', { schema: { response: { 200: stream } } }, async (request, reply) => {
    const user = request.signedIn;
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-store, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    raw.write('retry: 3000\n: connected\n\n');
    const unsubscribe = await hub.subscribe({
      user,
      send: (change) => {
        const visible = changeFor(user, change);
        if (visible) raw.write(`event: change\ndata: ${JSON.stringify(visible)}\n\n`);
      },
    });
    const keepAlive = setInterval(async () => {
      try {
        await app.authenticate(request);
        raw.write(': keep-alive\n\n');
      } catch {
        raw.end();
      }
    }, keepAliveMs);
    const stop = () => {
      clearInterval(keepAlive);
      unsubscribe();
    };
    raw.on('close', stop);
  });
}
