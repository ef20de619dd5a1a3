import http from 'node:http';
import { promisify } from 'node:util';
import { brotliDecompress, gunzip } from 'node:zlib';

/**
 * The bench's load, in a process of its own (forked by bench.ts): the clients' work (requests,
 * timing, parsing answers) never runs in the event loop of the server under test. Each message
 * is a job; the answer is every call's duration (ms) and the wall time of the whole run.
 */
export type Writer = { tutorId: string; engagementId: string; lessonId?: string };
export type LoadJob =
  | { kind: 'get'; url: string; headers: Record<string, string>; concurrency: number; warmup: number; total: number }
  | {
      kind: 'save';
      url: string;
      headers: Record<string, string>;
      writers: Writer[];
      date: string;
      warmup: number;
      total: number;
    };
export type LoadResult = { durations: number[]; seconds: number; failures: number; firstFailure?: string };

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
const decoders: Record<string, (buffer: Buffer) => Promise<Buffer>> = {
  br: promisify(brotliDecompress),
  gzip: promisify(gunzip),
};

function request(url: string, method: string, headers: Record<string, string>, body?: string) {
  return new Promise<{ status: number; encoding?: string; body: Buffer }>((resolve, reject) => {
    const sent = http.request(url, { method, headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          encoding: response.headers['content-encoding'],
          body: Buffer.concat(chunks),
        }),
      );
      response.on('error', reject);
    });
    sent.on('error', reject);
    sent.end(body);
  });
}

/** `workers` loops sharing `total` calls; a call that fails is counted, not timed. */
async function run(total: number, workers: number, call: (worker: number, n: number) => Promise<void>) {
  const durations: number[] = [];
  let failures = 0;
  let firstFailure: string | undefined;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: workers }, async (_, worker) => {
      for (let n = next++; n < total; n = next++) {
        const t = performance.now();
        try {
          await call(worker, n);
          durations.push(performance.now() - t);
        } catch (error) {
          failures += 1;
          firstFailure ??= String(error).slice(0, 300);
        }
      }
    }),
  );
  return { durations, seconds: (performance.now() - started) / 1000, failures, firstFailure };
}

async function get(job: Extract<LoadJob, { kind: 'get' }>): Promise<LoadResult> {
  const call = async () => {
    // The answer is read to its end, not decoded: what a client does with it is not the server's time.
    const { status, body } = await request(job.url, 'GET', job.headers);
    if (status !== 200) throw new Error(`GET ${job.url}: ${status} ${body.toString().slice(0, 200)}`);
  };
  await run(job.warmup, job.concurrency, call);
  return run(job.total, job.concurrency, call);
}

/** Each writer saves one cell of its own tutor's engagement, today, its duration changing each time. */
async function save(job: Extract<LoadJob, { kind: 'save' }>): Promise<LoadResult> {
  const writers = job.writers.map((writer) => ({ ...writer }));
  const call = async (worker: number, n: number) => {
    const writer = writers[worker] as Writer;
    const { status, encoding, body } = await request(
      job.url,
      'POST',
      job.headers,
      JSON.stringify({
        commandId: crypto.randomUUID(),
        tutorId: writer.tutorId,
        lesson: {
          ...(writer.lessonId ? { id: writer.lessonId } : {}),
          engagementId: writer.engagementId,
          date: job.date,
          duration: n % 2 === 0 ? 1.5 : 1,
        },
      }),
    );
    const decode = encoding ? decoders[encoding] : undefined;
    const text = (decode ? await decode(body) : body).toString();
    if (status !== 200) throw new Error(`save: ${status} ${text.slice(0, 200)}`);
    const answer = JSON.parse(text) as { lesson?: { id: string } | null };
    writer.lessonId = answer.lesson?.id;
  };
  await run(job.warmup, writers.length, call);
  return run(job.total, writers.length, call);
}

process.on('message', async (job: LoadJob) => {
  const result = job.kind === 'get' ? await get(job) : await save(job);
  process.send?.(result);
});
process.on('disconnect', () => process.exit(0));
