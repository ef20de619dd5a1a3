import { promisify } from 'node:util';
import { brotliCompress, brotliCompressSync, constants, gzip, gzipSync } from 'node:zlib';
import fastifyCompress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';

/** Brotli at quality 4 and gzip at level 4: quick enough per answer, whichever path compresses it. */
const BROTLI_OPTIONS = { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } };
const GZIP_OPTIONS = { level: 4 };
const JSON_TYPE = /^application\/json(;|$)/;

/**
 * Answers up to this size are compressed on the event loop, in one call (at 256 KB of a lessons
 * list's JSON, 2.3 ms of CPU at brotli 4 or gzip 4; up to 4.7 ms for gzip of text that hardly
 * compresses); larger ones in libuv's thread pool. Measured on a page of 250 lessons (96 KB of JSON, 8 at once):
 * 0.73 ms of CPU in line against 1.7 ms in the pool, and 2.2 against 6.1 ms a whole answer with its
 * reads beside a busy database, each pool job setting up a fresh encoder in a thread of its own
 * (docs/performance.md, "Compression in line").
 */
export const COMPRESSED_IN_LINE_UP_TO = 256 * 1024;

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);
const compressors = {
  br: (input: Buffer) =>
    input.length <= COMPRESSED_IN_LINE_UP_TO
      ? brotliCompressSync(input, BROTLI_OPTIONS)
      : brotli(input, BROTLI_OPTIONS),
  gzip: (input: Buffer) =>
    input.length <= COMPRESSED_IN_LINE_UP_TO ? gzipSync(input, GZIP_OPTIONS) : gzipped(input, GZIP_OPTIONS),
};

/** An answer's body as this service sends it in `encoding` (the bench's floor compresses with it too). */
export const compressAnswer = (body: Buffer, encoding: keyof typeof compressors): Buffer | Promise<Buffer> =>
  compressors[encoding](body);

/**
 * The query tree's compression: JSON answers of `from` bytes and more in one go
 * (`compressJsonAnswers`), then @fastify/compress for the JSON it leaves (streams, request
 * bodies), with the same encodings and levels. Nothing else: server-sent events must flow as
 * written, and PDFs and zips are compressed already.
 */
export async function registerAnswerCompression(app: FastifyInstance, { from }: { from: number }) {
  compressJsonAnswers(app, { from });
  await app.register(fastifyCompress, {
    encodings: ['br', 'gzip'],
    threshold: from,
    customTypes: JSON_TYPE,
    brotliOptions: BROTLI_OPTIONS,
    zlibOptions: GZIP_OPTIONS,
  });
}

/**
 * The encoding of ours the client prefers (`Accept-Encoding`, its q-values and `*`): brotli on a
 * tie. Names and the `q` parameter are read in any case (`br;Q=0` refuses brotli), and `x-gzip`
 * is gzip, as RFC 9110 and @fastify/compress read them.
 */
export function acceptedEncoding(header: string | undefined): keyof typeof compressors | undefined {
  if (!header) return undefined;
  const weights = new Map<string, number>();
  for (const part of header.toLowerCase().split(',')) {
    const [token = '', ...parameters] = part.split(';').map((piece) => piece.trim());
    const q = parameters.find((parameter) => /^q\s*=/.test(parameter));
    const name = token === 'x-gzip' ? 'gzip' : token;
    const weight = q ? Number(q.slice(q.indexOf('=') + 1).trim()) || 0 : 1;
    // Named twice (`gzip, x-gzip;q=0`): the better weight, as @fastify/compress's negotiator does.
    weights.set(name, Math.max(weight, weights.get(name) ?? 0));
  }
  let chosen: keyof typeof compressors | undefined;
  let best = 0;
  for (const name of ['br', 'gzip'] as const) {
    const weight = weights.get(name) ?? weights.get('*') ?? 0;
    if (weight > best) {
      chosen = name;
      best = weight;
    }
  }
  return chosen;
}

/**
 * JSON answers of `from` bytes and more, compressed in one go (brotli 4 or gzip 4, as the client
 * prefers; in line or in the thread pool by size, `COMPRESSED_IN_LINE_UP_TO`), not streamed through
 * an encoder on the event loop: a list page of 40–100 KB spent a fifth of its CPU profile in the
 * stream's machinery. Registered before
 * @fastify/compress, which then leaves an answer that says its encoding as it is (and still
 * handles what this does not: streams, request bodies).
 */
export function compressJsonAnswers(app: FastifyInstance, { from }: { from: number }) {
  app.addHook('onSend', async (request, reply, payload) => {
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
    if (!JSON_TYPE.test(String(reply.getHeader('content-type') ?? ''))) return payload;
    if (reply.getHeader('content-encoding') !== undefined || request.headers['x-no-compression'] !== undefined) {
      return payload;
    }
    if (Buffer.byteLength(payload) < from) return payload;
    const encoding = acceptedEncoding(request.headers['accept-encoding']);
    if (!encoding) return payload;
    const compressed = await compressAnswer(Buffer.isBuffer(payload) ? payload : Buffer.from(payload), encoding);
    const vary = String(reply.getHeader('vary') ?? '');
    if (!/(^|,)\s*accept-encoding\s*(,|$)/i.test(vary))
      reply.header('vary', vary ? `${vary}, accept-encoding` : 'accept-encoding');
    reply.header('content-encoding', encoding);
    reply.header('content-length', compressed.length);
    return compressed;
  });
}
