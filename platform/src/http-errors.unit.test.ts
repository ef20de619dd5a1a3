import { LIMITS } from '@agency/contracts';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { installErrorReplies, serverLimits } from './http-errors';

describe('the 413 answer', () => {
  const app = Fastify({ logger: false, ...serverLimits });
  installErrorReplies(app);
  app.post('/api/things', async () => ({ ok: true }));
  app.post('/api/public/form', { bodyLimit: 16_384 }, async () => ({ ok: true }));
  afterAll(() => app.close());

  const post = (url: string, bytes: number) =>
    app.inject({ method: 'POST', url, payload: { text: 'x'.repeat(bytes) } });

  it('names the limit of the route refused: its own where it has one, else the server’s', async () => {
    const tight = await post('/api/public/form', 20_000);
    expect(tight.statusCode).toBe(413);
    expect(tight.json()).toEqual({
      error: { code: 'payload_too_large', message: 'The request is too large (16 KiB at most).' },
    });
    const wide = await post('/api/things', LIMITS.maxBodyBytes + 1);
    expect(wide.statusCode).toBe(413);
    expect(wide.json().error.message).toBe(`The request is too large (${LIMITS.maxBodyBytes / 1024} KiB at most).`);
  });
});
