import { AsyncLocalStorage } from 'node:async_hooks';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import { Session } from 'node:inspector/promises';
import { configFromEnvironment } from '@agency/scripts/config';
import { startProduct } from '@agency/scripts/product';
import pg from 'pg';
import type { Statement } from './floor';

/**
 * The product under test, in a process of its own (forked by bench.ts), started as `npm start`
 * starts it (its log on this process's stdout, which the bench sends to a file) on the bench's
 * database. Nothing of the bench runs here but this: `node --cpu-prof` of this process is a
 * profile of the product alone. Messages: start (the URL and an admin's session token back),
 * capture (the SQL the product runs to answer one GET), profile (a CPU profile of this process,
 * as `node --cpu-prof` takes it, from `start` until asked to write it to `file`), stop.
 */
export type HostRequest =
  | { kind: 'start'; databaseUrl: string }
  | { kind: 'capture'; path: string; body?: unknown }
  | { kind: 'profile'; file?: string }
  | { kind: 'stop' };
export type HostAnswer =
  | { url: string; token: string }
  | { statements: Statement[]; sent: string[] }
  | { profiling: boolean }
  | { stopped: true };

let product: Awaited<ReturnType<typeof startProduct>> | undefined;
let token = '';
let profiler: Session | undefined;

/** Starts sampling (no file), or stops and writes what was sampled since (a file). */
async function profile(file: string | undefined) {
  if (!file) {
    profiler = new Session();
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.start');
    return true;
  }
  if (!profiler) throw new Error('No profile was started.');
  const { profile } = await profiler.post('Profiler.stop');
  writeFileSync(file, JSON.stringify(profile));
  profiler.disconnect();
  profiler = undefined;
  return false;
}

/** Set while the product's HTTP servers handle a request, in every async step that follows from it. */
const inRequest = new AsyncLocalStorage<true>();

/**
 * What the product asks the database to answer `path`: every statement sent from the request's
 * own async steps (not the projections', reactors' or leadership's, which run beside it), less the
 * sign-in's (auth.*) and the machinery's (the event store, checkpoints, locks, transactions), which
 * a bare server does not need.
 */
async function capture(path: string, body?: unknown) {
  const seen: Statement[] = [];
  const server = http.Server.prototype as unknown as { emit: (...args: unknown[]) => boolean };
  const emit = server.emit;
  server.emit = function (this: unknown, ...args: unknown[]) {
    return args[0] === 'request' ? inRequest.run(true, () => emit.apply(this, args)) : emit.apply(this, args);
  };
  const query = pg.Client.prototype.query;
  const client = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  client.query = function (this: unknown, ...args: unknown[]) {
    const [config, values] = args as [unknown, unknown];
    const text = typeof config === 'string' ? config : (config as { text?: unknown } | null)?.text;
    if (typeof text === 'string' && inRequest.getStore()) {
      const given = Array.isArray(values) ? values : (config as { values?: unknown[] }).values;
      seen.push({ text, values: given ?? [] });
    }
    return (query as (...args: unknown[]) => unknown).apply(this, args);
  };
  try {
    const response = await fetch(`${product?.url}${path}`, {
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { method: 'POST', body: JSON.stringify(body) }),
    });
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
  } finally {
    client.query = query as unknown as (...args: unknown[]) => unknown;
    server.emit = emit;
  }
  const machinery =
    /\bauth\.|\bes\.|\bcommand\.|projection_checkpoints|pg_advisory|pg_notify|^\s*(begin|commit|rollback|set|listen|unlisten|reset|discard)\b/i;
  return {
    statements: seen.filter((statement) => !machinery.test(statement.text)),
    sent: seen.map((statement) => statement.text),
  };
}

async function handle(request: HostRequest): Promise<HostAnswer> {
  if (request.kind === 'start') {
    const config = configFromEnvironment();
    product = await startProduct({ ...config, port: 0, databaseUrl: request.databaseUrl });
    // The first admin: the one the product created at its first start on this store, if it did.
    const db = new pg.Client({ connectionString: request.databaseUrl });
    await db.connect();
    const admin = (
      await db
        .query(
          `select data->>'userId' as id, data->>'username' as username from es.events
            where event_type = 'UserRegistered' and data->>'role' = 'admin' order by global_position limit 1`,
        )
        .finally(() => db.end())
    ).rows[0] as { id: string; username: string };
    token = await product.command.signSession({ ...admin, role: 'admin' });
    return { url: product.url, token };
  }
  if (request.kind === 'capture') return capture(request.path, request.body);
  if (request.kind === 'profile') return { profiling: await profile(request.file) };
  await product?.stop();
  return { stopped: true };
}

process.on('message', (request: HostRequest) => {
  handle(request).then(
    (answer) =>
      process.send?.(answer, undefined, undefined, () => {
        if (request.kind === 'stop') process.exit(0);
      }),
    (error: unknown) => process.send?.({ error: String((error as Error)?.stack ?? error) }),
  );
});
