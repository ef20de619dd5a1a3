import { once } from 'node:events';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { HttpError, installErrorReplies } from '@agency/platform/http-errors';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptedEncoding, COMPRESSED_IN_LINE_UP_TO, registerAnswerCompression } from './answer-compression';

describe('the encoding a client accepts', () => {
  it('is brotli when both are accepted alike, else the one of higher q; none when neither is', () => {
    expect(acceptedEncoding('gzip, deflate, br')).toBe('br');
    expect(acceptedEncoding('gzip;q=1, br;q=0.5')).toBe('gzip');
    expect(acceptedEncoding('br;q=0, gzip')).toBe('gzip');
    expect(acceptedEncoding('*')).toBe('br');
    expect(acceptedEncoding('identity')).toBeUndefined();
    expect(acceptedEncoding('br;q=0, gzip;q=0')).toBeUndefined();
    expect(acceptedEncoding(undefined)).toBeUndefined();
  });

  it('reads names and the q parameter in any case, and never picks an encoding the client refuses', () => {
    // A parameter's name is case-insensitive (RFC 9110, 5.6.6): Q=0 refuses as q=0 does.
    expect(acceptedEncoding('br;Q=0, gzip')).toBe('gzip');
    expect(acceptedEncoding('BR;Q=0, GZIP;Q=0')).toBeUndefined();
    expect(acceptedEncoding('GZIP')).toBe('gzip');
    expect(acceptedEncoding(' br ; q=0.0 ,\tgzip ; q=0.5 ')).toBe('gzip');
    expect(acceptedEncoding('gzip;q=0.0')).toBeUndefined();
    expect(acceptedEncoding('gzip;q=0, *')).toBe('br');
    expect(acceptedEncoding('*;q=0, gzip')).toBe('gzip');
    expect(acceptedEncoding('identity;q=0')).toBeUndefined();
    expect(acceptedEncoding('identity;q=0, *;q=0')).toBeUndefined();
    expect(acceptedEncoding('br;q=abc')).toBeUndefined();
    expect(acceptedEncoding('')).toBeUndefined();
    // x-gzip is gzip (RFC 9110, 8.4.1.3), as @fastify/compress reads it.
    expect(acceptedEncoding('x-gzip')).toBe('gzip');
    expect(acceptedEncoding('x-gzip;q=0, br;q=0')).toBeUndefined();
    expect(acceptedEncoding('gzip, x-gzip;q=0, br;q=0')).toBe('gzip');
    // A header as long as Node admits (16 KB) is read in one pass.
    expect(acceptedEncoding(`${'deflate;q=0.5, '.repeat(1000)}gzip`)).toBe('gzip');
  });
});

/** 6 KB of JSON, over the threshold. */
const big = { rows: Array.from({ length: 100 }, (_, index) => ({ index, name: `Row number ${index} of the list` })) };
const FROM = 4096;
/** Over the size compressed in line: compressed in the thread pool instead. */
const huge = {
  rows: Array.from({ length: 6000 }, (_, index) => ({ index, name: `Row number ${index} of the list` })),
};

/** The query tree's compression, registered as queryTree registers it. */
async function compressingApp() {
  const app = Fastify({ logger: false });
  installErrorReplies(app);
  // The client of /disconnecting is gone before its answer is made; `answered` settles once
  // the answer has been compressed and handed on to be written to nobody.
  let arrived: () => void = () => {};
  const disconnecting = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  let settled: () => void = () => {};
  const answered = new Promise<void>((resolve) => {
    settled = resolve;
  });
  await registerAnswerCompression(app, { from: FROM });
  app.addHook('onSend', async (request, _reply, payload) => {
    if (request.url === '/disconnecting') setImmediate(settled);
    return payload;
  });
  app.get('/big', async () => big);
  app.get('/huge', async () => huge);
  app.get('/big-varied', async (_request, reply) => {
    reply.header('vary', 'Origin, Accept-Encoding');
    return big;
  });
  app.get('/refused', async () => {
    const fields = Object.fromEntries(Array.from({ length: 300 }, (_, index) => [`field${index}`, 'Must be given.']));
    throw new HttpError(400, 'invalid_input', 'Must be given.', fields);
  });
  app.get('/csv', async (_request, reply) => reply.type('text/csv').send('a,b\n'.repeat(2000)));
  app.get('/stream', async (_request, reply) =>
    reply.type('application/json').send(Readable.from([JSON.stringify(big)])),
  );
  app.get('/buffer', async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send(Buffer.from(JSON.stringify(big))),
  );
  app.get('/disconnecting', async (request) => {
    const gone = once(request.raw.socket, 'close');
    arrived();
    await gone;
    return big;
  });
  return { app, disconnecting, answered };
}

const decoded = (encoding: string | undefined, body: Buffer) =>
  JSON.parse(
    (encoding === 'br' ? brotliDecompressSync(body) : encoding === 'gzip' ? gunzipSync(body) : body).toString('utf8'),
  );

describe('a JSON answer compressed in one go', () => {
  let made: Awaited<ReturnType<typeof compressingApp>>;
  beforeAll(async () => {
    made = await compressingApp();
  });
  afterAll(() => made.app.close());
  const get = (url: string, acceptEncoding?: string, method: 'GET' | 'HEAD' = 'GET') =>
    made.app.inject({
      method,
      url,
      headers: acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding },
    });

  it('is never in an encoding the client refuses, and plain when it accepts none of ours', async () => {
    for (const [header, expected] of [
      ['br;Q=0, gzip', 'gzip'],
      ['BR, GZIP', 'br'],
      ['gzip;q=0.0, br', 'br'],
      ['identity;q=0', undefined],
      ['br;q=0, gzip;q=0', undefined],
      ['deflate', undefined],
      ['', undefined],
      [undefined, undefined],
    ] as const) {
      const answer = await get('/big', header);
      expect(answer.statusCode).toBe(200);
      expect(answer.headers['content-encoding'], header).toBe(expected);
      expect(decoded(expected, answer.rawPayload), header).toEqual(big);
      expect(Number(answer.headers['content-length']), header).toBe(answer.rawPayload.length);
    }
  });

  it('compresses an answer in line and one too big for that in the pool, to the same encoding, whole', async () => {
    expect(JSON.stringify(big).length).toBeLessThanOrEqual(COMPRESSED_IN_LINE_UP_TO);
    expect(JSON.stringify(huge).length).toBeGreaterThan(COMPRESSED_IN_LINE_UP_TO);
    for (const [url, value] of [
      ['/big', big],
      ['/huge', huge],
    ] as const) {
      for (const encoding of ['br', 'gzip'] as const) {
        const answer = await get(url, encoding);
        expect(answer.headers['content-encoding'], url).toBe(encoding);
        expect(Number(answer.headers['content-length']), url).toBe(answer.rawPayload.length);
        expect(decoded(encoding, answer.rawPayload), url).toEqual(value);
      }
    }
  });

  it('says Vary: Accept-Encoding once, with a Content-Length of the bytes sent', async () => {
    for (const url of ['/big', '/big-varied', '/buffer']) {
      const answer = await get(url, 'br, gzip');
      expect(answer.headers['content-encoding'], url).toBe('br');
      const vary = String(answer.headers.vary);
      expect(vary.match(/accept-encoding/gi), `${url}: ${vary}`).toHaveLength(1);
      expect(Number(answer.headers['content-length']), url).toBe(answer.rawPayload.length);
      expect(decoded('br', answer.rawPayload), url).toEqual(big);
    }
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const whole = await get('/big', 'gzip');
    const head = await get('/big', 'gzip', 'HEAD');
    expect(head.statusCode).toBe(200);
    expect(head.rawPayload.length).toBe(0);
    expect(head.headers['content-encoding']).toBe(whole.headers['content-encoding']);
    expect(head.headers['content-length']).toBe(whole.headers['content-length']);
    expect(head.headers.vary).toBe(whole.headers.vary);
  });

  it('keeps a large error as the usual error body, decoded', async () => {
    const refused = await get('/refused', 'br');
    expect(refused.statusCode).toBe(400);
    expect(refused.headers['content-encoding']).toBe('br');
    const body = decoded('br', refused.rawPayload);
    expect(body.error.code).toBe('invalid_input');
    expect(Object.keys(body.error.fields)).toHaveLength(300);
  });

  it('leaves what is not a buffered JSON answer to @fastify/compress, as before: CSV and a stream streamed', async () => {
    const csv = await get('/csv', 'br, gzip');
    expect(csv.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(csv.rawPayload).toString('utf8')).toBe('a,b\n'.repeat(2000));
    const streamed = await get('/stream', 'gzip');
    expect(streamed.headers['content-encoding']).toBe('gzip');
    expect(streamed.headers['content-length']).toBeUndefined();
    expect(decoded('gzip', streamed.rawPayload)).toEqual(big);
  });

  it('survives a client gone before its answer: no crash, and the next client is answered', async () => {
    await made.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = made.app.server.address() as AddressInfo;
    const asked = request({ port, host: '127.0.0.1', path: '/disconnecting', headers: { 'accept-encoding': 'br' } });
    asked.on('error', () => {});
    asked.end();
    await made.disconnecting;
    asked.destroy();
    await made.answered;
    const next = await get('/big', 'br');
    expect(decoded('br', next.rawPayload)).toEqual(big);
  });
});
