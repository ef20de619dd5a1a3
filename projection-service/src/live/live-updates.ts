import { LIMITS, nonJsonAnswer, type SessionUser } from '@agency/contracts';
import { comparePositions, type EventStore, HttpError, type Position } from '@agency/platform';
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

type Subscriber = {
  user: SessionUser;
  send: (change: Change) => void;
  /** Ends the subscriber's stream (the hub can no longer hear changes). */
  end: () => void;
};

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
 * they moved over (from the event store), and tells each subscriber what it may know. The
 * LISTEN connection is opened by the first subscriber (concurrent first subscribers share the
 * one promise of it) and ended with the last.
 */
export class CheckpointHub {
  private readonly subscribers = new Set<Subscriber>();
  /** The LISTEN connection being opened or open; null while nobody listens. */
  private listening: Promise<pg.Client> | null = null;
  private active: pg.Client | null = null;
  /** Every LISTEN connection not yet ended (one at most, but for one being ended). */
  private readonly connections = new Set<pg.Client>();
  /** The checkpoints told of already; undefined until the LISTEN connection is ready. */
  private seen: Map<string, Position> | undefined;
  private reading = false;
  private again = false;

  constructor(
    private readonly databaseUrl: string,
    private readonly db: pg.Pool,
    private readonly store: EventStore,
  ) {}

  /** LISTEN connections not yet ended, and the subscribers: what a test of leaks counts. */
  get counts() {
    return { connections: this.connections.size, subscribers: this.subscribers.size };
  }

  /** Resolves once the subscriber is heard; the function it answers ends that (once is enough). */
  async subscribe(subscriber: Subscriber): Promise<() => void> {
    this.subscribers.add(subscriber);
    const unsubscribe = () => {
      if (this.subscribers.delete(subscriber) && this.subscribers.size === 0) void this.stopListening();
    };
    try {
      this.listening ??= this.startListening();
      await this.listening;
    } catch (error) {
      unsubscribe();
      throw error;
    }
    return unsubscribe;
  }

  async close() {
    this.subscribers.clear();
    await this.stopListening();
  }

  private startListening(): Promise<pg.Client> {
    const listening: Promise<pg.Client> = this.connectListener().then(
      (listener) => {
        if (this.listening === listening) this.active = listener;
        return listener;
      },
      (error) => {
        if (this.listening === listening) this.listening = null;
        throw error;
      },
    );
    return listening;
  }

  private async connectListener(): Promise<pg.Client> {
    const listener = new pg.Client({ connectionString: this.databaseUrl });
    this.connections.add(listener);
    listener.on('error', () => this.lost(listener));
    listener.on('notification', () => this.changed());
    try {
      this.seen = undefined;
      await listener.connect();
      await listener.query(`listen ${CHECKPOINT_CHANNEL}`);
      // Read after LISTEN: a move between the two is in these positions, not missed. The positions
      // already applied are not news to anyone.
      this.seen = await this.checkpoints();
      return listener;
    } catch (error) {
      await this.endConnection(listener);
      throw error;
    }
  }

  private async stopListening() {
    const listening = this.listening;
    this.listening = null;
    this.active = null;
    const listener = await listening?.catch(() => null);
    if (listener) await this.endConnection(listener);
  }

  /** The LISTEN connection failed: its streams end, and the browsers reconnect to a new one. */
  private lost(listener: pg.Client) {
    void this.endConnection(listener);
    if (this.active !== listener) return;
    this.active = null;
    this.listening = null;
    for (const subscriber of [...this.subscribers]) subscriber.end();
  }

  private async endConnection(listener: pg.Client) {
    if (!this.connections.delete(listener)) return;
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
    if (!this.seen) return;
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
    const seen = this.seen ?? new Map<string, Position>();
    const now = await this.checkpoints();
    const moved = [...now].filter(([name, position]) => {
      const before = seen.get(name);
      return !before || comparePositions(position, before) > 0;
    });
    if (moved.length === 0) return null;
    // From the least of the moved checkpoints; a projection new to this hub moved from the start.
    const before = moved.map(([name]) => seen.get(name));
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

export type LiveStreamLimits = {
  perSession: number;
  perUser: number;
  total: number;
  /** A stream is closed at the first check after it is this old (milliseconds). */
  maxAgeMs: number;
  /** How often every open stream's session is checked and a keep-alive comment sent (milliseconds). */
  tickMs: number;
};

/** docs/limits.md, "Live updates". */
export const LIVE_STREAM_LIMITS: LiveStreamLimits = {
  perSession: LIMITS.maxLiveStreamsPerSession,
  perUser: LIMITS.maxLiveStreamsPerUser,
  total: LIMITS.maxLiveStreams,
  maxAgeMs: LIMITS.liveStreamMaxAgeMs,
  tickMs: LIMITS.liveStreamTickMs,
};

/** What the periodic check asks of the sessions table: which of these are live (one query). */
export type LiveSessionCheck = { liveAmong(sessionIds: readonly string[]): Promise<Set<string>> };

type OpenStream = { userId: string; sessionId: string; openedAt: number; keepAlive: () => void; end: () => void };

const tooManyStreams = (message: string) => new HttpError(429, 'too_many_streams', message);

/**
 * The open live-update streams of this service, within their caps (per session, per user, in
 * all), and the one timer that checks them: each tick asks for the sessions of every open stream
 * in one query, ends the streams whose session is over or that are older than the maximum age,
 * and sends the others a keep-alive comment (so the socket's idle time-out never ends them).
 */
export class LiveStreams {
  readonly limits: LiveStreamLimits;
  private readonly open = new Set<OpenStream>();
  private readonly bySession = new Map<string, number>();
  private readonly byUser = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private checking = false;
  /** Checks run so far: a test waits for the next one by it. */
  ticks = 0;

  constructor(
    private readonly sessions: LiveSessionCheck,
    limits: Partial<LiveStreamLimits> = {},
  ) {
    this.limits = { ...LIVE_STREAM_LIMITS, ...limits };
  }

  get count() {
    return this.open.size;
  }

  /** Counts a new stream in, or refuses it (429) past a cap; the function answered lets it go (once). */
  admit(stream: Omit<OpenStream, 'openedAt'>): () => void {
    const { perSession, perUser, total } = this.limits;
    if ((this.bySession.get(stream.sessionId) ?? 0) >= perSession) {
      throw tooManyStreams(
        `At most ${perSession} live-update streams per sign-in: close another tab, or reload later.`,
      );
    }
    if ((this.byUser.get(stream.userId) ?? 0) >= perUser) {
      throw tooManyStreams(`At most ${perUser} live-update streams per user: close another tab, or reload later.`);
    }
    if (this.open.size >= total) throw tooManyStreams('Too many live-update streams are open: try again later.');
    const open: OpenStream = { ...stream, openedAt: Date.now() };
    this.open.add(open);
    this.bySession.set(open.sessionId, (this.bySession.get(open.sessionId) ?? 0) + 1);
    this.byUser.set(open.userId, (this.byUser.get(open.userId) ?? 0) + 1);
    if (!this.timer) {
      this.timer = setInterval(() => void this.tick(), this.limits.tickMs);
      this.timer.unref();
    }
    return () => this.release(open);
  }

  /** Ends every open stream (the service is closing). */
  close() {
    for (const stream of [...this.open]) stream.end();
    this.stopTimer();
  }

  private release(stream: OpenStream) {
    if (!this.open.delete(stream)) return;
    const less = (counts: Map<string, number>, key: string) => {
      const left = (counts.get(key) ?? 1) - 1;
      if (left > 0) counts.set(key, left);
      else counts.delete(key);
    };
    less(this.bySession, stream.sessionId);
    less(this.byUser, stream.userId);
    if (this.open.size === 0) this.stopTimer();
  }

  private stopTimer() {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async tick() {
    // A check slower than the tick is not doubled by the next one.
    if (this.checking) return;
    this.checking = true;
    try {
      const now = Date.now();
      for (const stream of [...this.open]) if (now - stream.openedAt >= this.limits.maxAgeMs) stream.end();
      const open = [...this.open];
      if (open.length > 0) {
        const live = await this.sessions.liveAmong([...new Set(open.map((stream) => stream.sessionId))]);
        for (const stream of open) {
          if (!this.open.has(stream)) continue;
          if (live.has(stream.sessionId)) stream.keepAlive();
          else stream.end();
        }
      }
    } catch {
      // The database did not answer: the streams stay, and the next tick asks again.
    } finally {
      this.checking = false;
      this.ticks++;
    }
  }
}

/**
 * GET /api/live: server-sent events, one `change` event (`{ readModels }`) each time a read model
 * the caller may see has moved, so open screens reload without polling. Streams are capped and
 * checked by `streams` (docs/limits.md, "Live updates"); a stream whose session is over, or that
 * has reached its maximum age, is closed, and the browser reconnects after `retry`.
 */
export async function liveUpdates(
  app: FastifyInstance,
  {
    hub,
    streams,
    retryMs = 3_000,
  }: { hub: Pick<CheckpointHub, 'subscribe' | 'close'>; streams: LiveStreams; retryMs?: number },
) {
  app.addHook('preClose', () => streams.close());
  app.addHook('onClose', () => hub.close());
  requireSignIn(app);
  // No parameters; the answer is a text/event-stream of `change` events, not JSON.
  const stream = nonJsonAnswer(
    'text/event-stream',
    'Server-sent `change` events naming what changed, as the caller may see it',
  );
  app.get('/api/live', { schema: { response: { 200: stream } } }, async (request, reply) => {
    const user = request.signedIn;
    const raw = reply.raw;
    let stopped = false;
    let unsubscribe: (() => void) | undefined;
    // The session the token names (its signature and liveness were checked by requireSignIn).
    const release = streams.admit({
      userId: user.id,
      sessionId: request.user.sid,
      keepAlive: () => {
        if (raw.headersSent) raw.write(': keep-alive\n\n');
      },
      end: () => stop(),
    });
    // Every way out (the client leaving, at any moment from here on; the server ending it) goes
    // through stop, which lets go of the stream's place and its subscription, and ends the
    // response: a socket the client left is not kept half-open.
    function stop() {
      if (stopped) return;
      stopped = true;
      release();
      unsubscribe?.();
      if (!raw.writableEnded) raw.end();
    }
    reply.hijack();
    raw.on('close', stop);
    if (raw.destroyed) {
      stop();
      return;
    }
    // The stream opens only once the hub hears changes: a change made after a client saw the
    // stream open is never one the hub took as already known.
    const open = () => {
      if (raw.headersSent || stopped) return;
      raw.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-store, no-transform',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      raw.write(`retry: ${retryMs}\n: connected\n\n`);
    };
    try {
      const subscribed = await hub.subscribe({
        user,
        send: (change) => {
          const visible = changeFor(user, change);
          if (!visible || stopped) return;
          open();
          raw.write(`event: change\ndata: ${JSON.stringify(visible)}\n\n`);
        },
        end: stop,
      });
      // Closed while subscribing: the subscription is let go at once.
      if (stopped) subscribed();
      else {
        unsubscribe = subscribed;
        open();
      }
    } catch (error) {
      request.log.warn({ err: error }, 'live updates: could not listen for changes');
      stop();
    }
  });
}
