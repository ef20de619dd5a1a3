import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { timesheet } from '@agency/domain';
import { configFromEnvironment } from '@agency/scripts/config';
import { openDatabase } from '@agency/scripts/database';
import { startProduct } from '@agency/scripts/product';
import pg from 'pg';
import { chromium } from 'playwright-core';
import { clientsReady, FIRST_LOAD_BUDGET_BYTES, firstLoadReport, loginReady, scriptsLoadedBy } from './first-load';

/**
 * `npm run bench`: every figure of the performance budget against the scale store (DATA_DIR, default
 * .data-scale; seeded by `npm run seed:scale` first when it is empty), printed as one table:
 * figure, measured value, target, and a ratio where a baseline is measured in the same run.
 * Figures only: nothing here passes or fails. `--only queries` (or a comma list of rebuild,
 * commands, queries, asof, firstload, lighthouse, appends) measures only those phases, for a quick look.
 */
const PHASES = ['rebuild', 'commands', 'queries', 'asof', 'firstload', 'lighthouse', 'appends'] as const;
const { values: options } = parseArgs({ options: { only: { type: 'string' } } });
const only = options.only?.split(',').map((phase) => phase.trim()) ?? [...PHASES];
const unknownPhase = only.find((phase) => !(PHASES as readonly string[]).includes(phase));
if (unknownPhase) {
  console.error(`There is no bench phase "${unknownPhase}". Phases: ${PHASES.join(', ')}.`);
  process.exit(2);
}
const measures = (phase: (typeof PHASES)[number]) => only.includes(phase);
process.env.DATA_DIR ||= '.data-scale';
const ROOT = join(import.meta.dirname, '../..');
const config = configFromEnvironment();
const run = promisify(execFile);
type Line = { figure: string; value: string; target: string; ratio?: string };
const say = (line: string) => console.error(`· ${line}`);
/** The figures so far; each is also said as it is measured, so a later failure loses none. */
const table = {
  lines: [] as Line[],
  push(line: Line) {
    this.lines.push(line);
    say(`${line.figure}: ${line.value} (target ${line.target})${line.ratio ? `, ${line.ratio}` : ''}`);
  },
};

/** A script of ours as a child process (node + tsx), its peak RSS sampled from /proc. */
function script(path: string, args: string[] = [], env: NodeJS.ProcessEnv = {}, options = { mayFailAfter: '' }) {
  return new Promise<{ seconds: number; peakRssMb: number; output: string }>((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--import', 'tsx', path, ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    let peak = 0;
    const sample = setInterval(() => {
      try {
        const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0);
        peak = Math.max(peak, kb);
      } catch {}
    }, 100);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearInterval(sample);
      // A script that printed what was asked (`mayFailAfter`) and then failed still gave its figures.
      const printed = options.mayFailAfter !== '' && output.includes(options.mayFailAfter);
      if (code !== 0 && !printed) reject(new Error(`${path} exited with ${code}:\n${output}`));
      else resolve({ seconds: (performance.now() - started) / 1000, peakRssMb: peak / 1024, output });
    });
  });
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? 0;
const ms = (value: number) => `${value.toFixed(1)} ms`;

/** `workers` loops sharing `total` calls; answers each call's duration (ms) and the wall time (s). */
async function load(total: number, workers: number, call: (worker: number, n: number) => Promise<unknown>) {
  const durations: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: workers }, async (_, worker) => {
      for (let n = next++; n < total; n = next++) {
        const t = performance.now();
        await call(worker, n);
        durations.push(performance.now() - t);
      }
    }),
  );
  return { sorted: durations.sort((a, b) => a - b), seconds: (performance.now() - started) / 1000 };
}

/** The rebuild of every read model (a child process, its peak RSS) against a COPY of the same rows. */
async function rebuildFigures(events: number) {
  // The ceiling: the same rows copied into an empty table of the same shape, inside the server.
  say('COPY ceiling');
  // The server (another OS user) writes and reads the file: the folder is open to it.
  const folder = await mkdtemp(join(tmpdir(), 'agency-bench-'));
  await chmod(folder, 0o777);
  const file = join(folder, 'events.copy');
  await db.query(`drop table if exists public.bench_copy; create unlogged table public.bench_copy (like es.events)`);
  await db.query(`copy (select * from es.events) to '${file}'`);
  const copyStarted = performance.now();
  await db.query(`copy public.bench_copy from '${file}'`);
  const copyRate = events / ((performance.now() - copyStarted) / 1000);
  await db.query(`drop table public.bench_copy`);
  await rm(folder, { recursive: true, force: true });

  say('full rebuild (npm run rebuild)');
  const rebuild = await script('scripts/src/rebuild.ts');
  const rebuildRate = events / rebuild.seconds;
  table.push({
    figure: 'full rebuild of every read model',
    value: `${rebuildRate.toFixed(0)} events/s (${rebuild.seconds.toFixed(1)} s)`,
    target: '≥ 30,000 events/s',
    ratio: `${(rebuildRate / copyRate).toFixed(2)}× COPY (${copyRate.toFixed(0)} rows/s)`,
  });
  table.push({
    figure: 'peak RSS of the rebuild process',
    value: `${rebuild.peakRssMb.toFixed(0)} MB`,
    target: '≤ 400 MB',
  });
}

const database = await openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
const db = new pg.Pool({ connectionString: database.url, max: 4 });
// The product the bench starts stops PostgreSQL when it stops, closing this pool's idle
// connections under it: a closed idle connection is not an error of any figure.
db.on('error', () => {});
try {
  const count = async () =>
    Number((await db.query(`select count(*) from es.events`).catch(() => ({ rows: [{ count: 0 }] }))).rows[0].count);
  if ((await count()) === 0) {
    say(`${config.dataDir} is empty: seeding it (npm run seed:scale)`);
    const seeded = await script('scripts/src/seed-scale.ts');
    table.push({
      figure: 'seed:scale (events, time)',
      value: `${await count()} in ${seeded.seconds.toFixed(0)} s`,
      target: '≥ 1,000,000 in < 120 s',
    });
  }
  const events = await count();
  say(`${events} events in ${config.dataDir}`);

  if (measures('rebuild')) await rebuildFigures(events);
  if (['commands', 'queries', 'asof', 'firstload', 'lighthouse'].some((phase) => only.includes(phase)))
    await productFigures();
  if (measures('appends')) await appendFigures();
} finally {
  await db.end();
  await database.stop();
  // Whatever was measured, even when a later phase failed.
  printTable();
}

/** Commands, queries and Lighthouse, against the product started on the scale store. */
async function productFigures() {
  say('starting the product on the scale store');
  // On this very database (a second openDatabase in this process would start another server).
  const product = await startProduct({ ...config, port: 0, databaseUrl: database.url }, { log: () => {} });
  try {
    const admin = (
      await db.query(
        `select data->>'userId' as id, data->>'username' as username from es.events
          where event_type = 'UserRegistered' and data->>'role' = 'admin' order by global_position limit 1`,
      )
    ).rows[0] as { id: string; username: string };
    const token = await product.command.signSession({
      id: admin.id,
      username: admin.username,
      role: 'admin',
    });
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const get = async (path: string) => {
      const response = await fetch(`${product.url}${path}`, { headers });
      if (!response.ok) throw new Error(`GET ${path}: ${response.status} ${await response.text()}`);
      await response.arrayBuffer();
    };

    // Commands: 8 writers, each saving lessons of its own tutor's engagement today.
    const today = new Date().toISOString().slice(0, 10);
    const month = today.slice(0, 7);
    const writers = (
      await db.query(
        `select distinct on (data->>'tutorId') data->>'tutorId' as "tutorId", data->>'engagementId' as "engagementId"
           from es.events e where event_type = 'EngagementStarted' and data->>'startDate' <= $1
            and not exists (select 1 from es.events x where x.stream_id = e.stream_id and x.event_type = 'EngagementEnded')
          limit 8`,
        [today],
      )
    ).rows as { tutorId: string; engagementId: string }[];
    // A cell saved by an earlier run holds a lesson already: its id is the cell's, and it is sent.
    const lessonIds = new Map<number, string>();
    for (const [worker, { engagementId }] of writers.entries()) {
      const id = timesheet.cellLessonId({ engagement: { engagementId }, date: today });
      if ((await db.query('select 1 from read.lessons where id = $1', [id])).rowCount) lessonIds.set(worker, id);
    }
    const save = async (worker: number, n: number) => {
      const { tutorId, engagementId } = writers[worker % writers.length] as (typeof writers)[number];
      const id = lessonIds.get(worker);
      const response = await fetch(`${product.url}/api/lessons/lesson`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          commandId: crypto.randomUUID(),
          tutorId,
          lesson: { ...(id ? { id } : {}), engagementId, date: today, duration: n % 2 === 0 ? 1.5 : 1 },
        }),
      });
      const body = (await response.json()) as { visible?: boolean; lesson?: { id: string } | null };
      if (!response.ok) throw new Error(`save: ${response.status} ${JSON.stringify(body)}`);
      if (body.lesson) lessonIds.set(worker, body.lesson.id);
      else lessonIds.delete(worker);
      return { visible: body.visible === true };
    };
    if (measures('commands')) {
      say('commands: 8 concurrent writers');
      await load(16, writers.length, save);
      const commands = await load(800, writers.length, save);
      table.push({
        figure: `lesson save, answered once projected (${writers.length} writers)`,
        value: `p50 ${ms(percentile(commands.sorted, 0.5))}, p99 ${ms(percentile(commands.sorted, 0.99))}`,
        target: 'p99 < 50 ms',
      });
      table.push({
        figure: 'commands/s (8 writers)',
        value: `${(800 / commands.seconds).toFixed(0)}`,
        target: '≥ 500',
      });
    }

    const [year, monthNumber] = [Number(month.slice(0, 4)), Number(month.slice(5, 7))];
    const past = new Date(Date.UTC(year, monthNumber - 2, 1));
    const [pastYear, pastMonth] = [past.getUTCFullYear(), past.getUTCMonth() + 1];
    const oneTutor = writers[0] as (typeof writers)[number];
    const queries: [string, string][] = [
      ['lessons month, one tutor', `/api/lessons?year=${pastYear}&month=${pastMonth}&tutorId=${oneTutor.tutorId}`],
      ['lessons month, all tutors (a page: 250 by default)', `/api/lessons?year=${pastYear}&month=${pastMonth}`],
      ['invoices month', `/api/invoices?year=${pastYear}&month=${pastMonth}`],
      ['invoice status report', `/api/reports/invoiceStatus?year=${pastYear}&month=${pastMonth}`],
      ['clients list (a page: 250 by default)', '/api/clients'],
      ['tutor detail', `/api/tutors/${oneTutor.tutorId}`],
      ['engagement detail with history', `/api/tutors/engagement/${oneTutor.tutorId}/${oneTutor.engagementId}`],
    ];
    for (const [label, path] of measures('queries') ? queries : []) {
      say(`query: ${label}`);
      await load(16, 16, () => get(path));
      const answered = await load(320, 16, () => get(path));
      table.push({
        figure: `${label} (16 readers)`,
        value: `p50 ${ms(percentile(answered.sorted, 0.5))}, p99 ${ms(percentile(answered.sorted, 0.99))}`,
        target: 'p99 < 20 ms',
      });
    }

    // Every view that can be seen as of a past moment (the middle of the month after the one
    // shown, noon), one reader; then commands issued while as-of requests run.
    if (measures('asof')) {
      const moment = `${new Date(Date.UTC(pastYear, pastMonth, 15)).toISOString().slice(0, 10)}T12:00`;
      const asOf = (path: string) => `${path}${path.includes('?') ? '&' : '?'}asOf=${moment}`;
      // A view that does not answer within a minute is reported as such, not waited for.
      const patience = 60_000;
      const getAsOf = async (path: string) => {
        const response = await fetch(`${product.url}${asOf(path)}`, {
          headers,
          signal: AbortSignal.timeout(patience),
        });
        if (!response.ok) throw new Error(`GET ${path}: ${response.status} ${await response.text()}`);
        await response.arrayBuffer();
      };
      const failure = (error: unknown) =>
        (error as Error).name === 'TimeoutError'
          ? `no answer within ${patience / 1000} s`
          : `failed: ${String(error).slice(0, 200)}`;
      const views: [string, string][] = [
        ['invoice status report', `/api/reports/invoiceStatus?year=${pastYear}&month=${pastMonth}`],
        ['invoices month', `/api/invoices?year=${pastYear}&month=${pastMonth}`],
        ['invoices year', `/api/invoices?year=${pastYear}`],
        ['lessons month, one tutor', `/api/lessons?year=${pastYear}&month=${pastMonth}&tutorId=${oneTutor.tutorId}`],
        ['lessons month, all tutors (a page)', `/api/lessons?year=${pastYear}&month=${pastMonth}`],
        ['engagement detail with history', `/api/tutors/engagement/${oneTutor.tutorId}/${oneTutor.engagementId}`],
      ];
      for (const [label, path] of views) {
        say(`as of: ${label}`);
        const figure = `${label} as of ${moment} (one reader, 20 calls)`;
        try {
          await getAsOf(path);
          const answered = await load(20, 1, () => getAsOf(path));
          table.push({
            figure,
            value: `p50 ${ms(percentile(answered.sorted, 0.5))}, p99 ${ms(percentile(answered.sorted, 0.99))}`,
            target: 'p50 < 2 s',
          });
        } catch (error) {
          table.push({ figure, value: failure(error), target: 'p50 < 2 s' });
        }
      }

      // Lesson saves, one at a time: first alone (the same machine's figure without as-of
      // requests), then each issued while as-of requests run (two readers ask the lessons of every
      // tutor as of the moment, back to back, until the saves are done).
      say('as of: commands issued during as-of requests');
      const saveOnce = async (n: number) => {
        const t = performance.now();
        const { visible } = await save(n % writers.length, n);
        return { ms: performance.now() - t, visible };
      };
      const alone: number[] = [];
      for (let n = 0; n < 20; n++) alone.push((await saveOnce(n)).ms);
      alone.sort((a, b) => a - b);
      const lessonsAsOf = `/api/lessons?year=${pastYear}&month=${pastMonth}`;
      let running = 0;
      let saving = true;
      let started: () => void = () => {};
      const readers = Array.from({ length: 2 }, async () => {
        while (saving) {
          running += 1;
          started();
          await getAsOf(lessonsAsOf)
            .catch(() => {})
            .finally(() => {
              running -= 1;
            });
        }
      });
      const saves: { ms: number; visible: boolean }[] = [];
      try {
        for (let n = 0; n < 20; n++) {
          if (running === 0) await new Promise<void>((resolve) => (started = resolve));
          saves.push(await saveOnce(n));
        }
      } finally {
        saving = false;
        await Promise.all(readers);
      }
      const inTime = saves.filter((save) => save.visible && save.ms < 1000);
      const took = saves.map((save) => save.ms).sort((a, b) => a - b);
      table.push({
        figure: 'a command issued during an as-of request answered visible in under 1 s',
        value:
          `${inTime.length} of ${saves.length} (visible ${saves.filter((save) => save.visible).length}; ` +
          `p50 ${ms(percentile(took, 0.5))}, max ${ms(percentile(took, 1))}; ` +
          `alone: p50 ${ms(percentile(alone, 0.5))}, max ${ms(percentile(alone, 1))})`,
        target: 'all',
      });
    }

    // First-load JavaScript of the sign-in page and the clients list (empty cache), as e2e/first-load measures it.
    if (measures('firstload')) {
      say('first load: login and clients list');
      const browser = await chromium.launch({
        executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
        args: ['--no-sandbox', '--disable-gpu'],
      });
      try {
        for (const [label, path, ready, signedIn] of [
          ['sign-in page', '/login', loginReady, false],
          ['clients list', '/clients', clientsReady, true],
        ] as const) {
          const context = await browser.newContext({ baseURL: product.url });
          if (signedIn) await context.addCookies([{ name: 'token', value: token, url: product.url }]);
          const { total } = firstLoadReport(await scriptsLoadedBy(context, path, ready));
          await context.close();
          table.push({
            figure: `first-load JS, ${label} (gzipped)`,
            value: `${(total / 1000).toFixed(1)} KB`,
            target: `≤ ${FIRST_LOAD_BUDGET_BYTES / 1000} KB`,
          });
        }
      } finally {
        await browser.close();
      }
    }

    // Lighthouse on two screens, signed in by the session cookie.
    const screens = [
      ['clients list', '/clients'],
      ['lessons month, all tutors', `/lessons?year=${pastYear}&month=${pastMonth}`],
    ] as const;
    // Lighthouse's mobile score moves by several points between runs on this machine: each screen
    // is scored three times after one warm-up visit (the server's caches as a user would find
    // them, not a product started a second ago), and the median run is the figure; all three are shown.
    const lighthouseRuns = 3;
    for (const [label, path] of measures('lighthouse') ? screens : []) {
      say(`lighthouse: ${label} (warm-up, then ${lighthouseRuns} runs)`);
      try {
        await lighthouse(`${product.url}${path}`, token);
        const runs: { performance: number; accessibility: number; lcp: number; tbt: number }[] = [];
        for (let n = 0; n < lighthouseRuns; n++) runs.push(await lighthouse(`${product.url}${path}`, token));
        runs.sort((a, b) => a.performance - b.performance);
        const median = runs[Math.floor(runs.length / 2)] as (typeof runs)[number];
        table.push({
          figure: `Lighthouse mobile, ${label} (median of ${lighthouseRuns})`,
          value: `performance ${median.performance} (runs, lowest first: ${runs.map((run) => run.performance).join('/')}), accessibility ${median.accessibility}; LCP ${(median.lcp / 1000).toFixed(2)} s, TBT ${median.tbt.toFixed(0)} ms`,
          target: '≥ 95, 100',
        });
      } catch (error) {
        table.push({
          figure: `Lighthouse mobile, ${label}`,
          // Lighthouse's own words (its last line of output), not the command line (it holds the session token).
          value: `not measured: ${lighthouseFailure(error)}`,
          target: '≥ 95, 100',
        });
      }
    }
  } finally {
    await product.stop();
  }
}

const lighthouseFailure = (error: unknown) => {
  const { stderr, stdout } = error as { stderr?: string; stdout?: string };
  const said = `${stderr ?? ''}\n${stdout ?? ''}`.trim().split('\n').filter(Boolean);
  return said.at(-1)?.slice(0, 300) ?? String(error).split('\n')[0]?.split(' ')[0];
};

/** One Lighthouse run (mobile defaults) of a page, signed in by the session cookie. */
async function lighthouse(url: string, token: string) {
  const profile = await mkdtemp(join(tmpdir(), 'agency-lighthouse-'));
  try {
    // The lighthouse package from node_modules when installed, else through npx.
    const local = join(ROOT, 'node_modules/.bin/lighthouse');
    const [command, first] = existsSync(local) ? [local, []] : ['npx', ['--yes', 'lighthouse@12']];
    const { stdout } = await run(
      command,
      [
        ...first,
        url,
        '--output=json',
        '--quiet',
        '--only-categories=performance,accessibility',
        `--extra-headers=${JSON.stringify({ Cookie: `token=${token}` })}`,
        `--chrome-flags=--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking --disable-component-update --disable-sync --user-data-dir=${profile}`,
      ],
      { env: { ...process.env, CHROME_PATH: process.env.CHROME_PATH ?? '/usr/bin/chromium' }, maxBuffer: 64 << 20 },
    );
    const report = JSON.parse(stdout) as {
      categories: Record<string, { score: number | null }>;
      audits: Record<string, { numericValue?: number }>;
    };
    const score = (name: string) => Math.round((report.categories[name]?.score ?? 0) * 100);
    return {
      performance: score('performance'),
      accessibility: score('accessibility'),
      lcp: report.audits['largest-contentful-paint']?.numericValue ?? Number.NaN,
      tbt: report.audits['total-blocking-time']?.numericValue ?? Number.NaN,
    };
  } finally {
    await rm(profile, { recursive: true, force: true });
  }
}

async function appendFigures() {
  // Appends vs raw INSERT: bench/src/store.bench.ts, on its own scratch database.
  say('appends vs raw INSERT (bench/src/store.bench.ts)');
  // Its pool reports the server's shutdown as an unhandled error after the figures: they count.
  const store = await script('bench/src/store.bench.ts', [], {}, { mayFailAfter: 'single appends, concurrency 8' });
  const ratio = /single appends, concurrency 8\s+([\d.]+)/.exec(store.output)?.[1];
  const appends = /appendToStream, 1 event, concurrency 8\s+(\d+)/.exec(store.output)?.[1];
  table.push({
    figure: 'appends, concurrency 8',
    value: `${appends ?? '?'} events/s`,
    target: '≥ 0.9× raw INSERT',
    ratio: `${ratio ?? '?'}× raw INSERT`,
  });
}

function printTable() {
  const widths = [0, 1, 2].map((i) =>
    Math.max(...table.lines.map((line) => [line.figure, line.value, line.target][i]!.length), 10),
  );
  console.log(`\nBenchmarks (${config.dataDir}, ${new Date().toISOString()}; shared 2-core machine, noisy)\n`);
  console.log(
    `${'figure'.padEnd(widths[0]!)}  ${'measured'.padEnd(widths[1]!)}  ${'target'.padEnd(widths[2]!)}  ratio`,
  );
  for (const line of table.lines) {
    console.log(
      `${line.figure.padEnd(widths[0]!)}  ${line.value.padEnd(widths[1]!)}  ${line.target.padEnd(widths[2]!)}  ${line.ratio ?? ''}`,
    );
  }
}
