import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPRESSED_FROM_BYTES } from './app';

/** One GET through the front door as raw bytes: status, headers and the body as sent (not decoded). */
function rawGet(url: string, headers: Record<string, string>, { firstChunkOnly = false } = {}) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
    const asked = request(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        if (firstChunkOnly) {
          response.destroy();
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) });
        }
      });
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
      );
      response.on('error', reject);
    });
    asked.on('error', reject);
    asked.end();
  });
}

/**
 * JSON answers of 4 KB and more go compressed to a browser that accepts it (a list page is on
 * the way to a phone's first paint), the same JSON once decoded; small answers (they arrive in
 * the first round trip either way), clients that accept no encoding and the server-sent events
 * stream go as written.
 */
describe('compressed JSON answers', () => {
  let product: TestProduct;
  let token: string;

  beforeAll(async () => {
    product = await startTestProduct();
    token = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
    const admin = product.api(token);
    const names = ['Adams', 'Baker', 'Clark', 'Davis', 'Evans', 'Frost', 'Grant', 'Hayes', 'Irwin', 'Jones'];
    for (const name of [...names, ...names.map((name) => `${name}-Smith`)]) {
      await admin.post('/api/clients/contact', {
        firstName: 'Pat',
        lastName: name,
        address: ['1 High Street', 'Little Snoring'],
        postcode: 'OX1 1AA',
        email: `pat.${name.toLowerCase()}@example.com`,
        phone: [{ type: 'Mobile', number: '07700 900001' }],
      });
    }
  });
  afterAll(async () => {
    await product?.dispose();
  });

  const asAdmin = (encoding?: string) => ({
    authorization: `Bearer ${token}`,
    ...(encoding ? { 'accept-encoding': encoding } : {}),
  });

  it('sends a list of 4 KB and more in brotli or gzip, as asked, and the same JSON decoded', async () => {
    const plain = await rawGet(`${product.url}/api/clients`, asAdmin());
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.length).toBeGreaterThanOrEqual(COMPRESSED_FROM_BYTES);
    const json = JSON.parse(plain.body.toString('utf8'));
    expect(json.clients).toHaveLength(20);

    const br = await rawGet(`${product.url}/api/clients`, asAdmin('br, gzip'));
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(br.body.length).toBeLessThan(plain.body.length);
    expect(JSON.parse(brotliDecompressSync(br.body).toString('utf8'))).toEqual(json);

    const gzip = await rawGet(`${product.url}/api/clients`, asAdmin('gzip'));
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(gzip.body).toString('utf8'))).toEqual(json);
  });

  it('sends a small answer as it is', async () => {
    const health = await rawGet(`${product.url}/api/health`, { 'accept-encoding': 'br, gzip' });
    expect(health.status).toBe(200);
    expect(health.body.length).toBeLessThan(1024);
    expect(health.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(health.body.toString('utf8'))).toBeTypeOf('object');
    // Over a kilobyte and under the threshold (a few clients, as an engagement's detail): as it is too.
    const few = await rawGet(`${product.url}/api/clients?limit=8`, asAdmin('br, gzip'));
    expect(few.body.length).toBeGreaterThan(1024);
    expect(few.body.length).toBeLessThan(COMPRESSED_FROM_BYTES);
    expect(few.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(few.body.toString('utf8')).clients).toHaveLength(8);
  });

  it('sends the live updates stream uncompressed, its first event at once', async () => {
    const live = await rawGet(`${product.url}/api/live`, asAdmin('br, gzip'), { firstChunkOnly: true });
    expect(live.status).toBe(200);
    expect(String(live.headers['content-type'])).toMatch(/^text\/event-stream/);
    expect(live.headers['content-encoding']).toBeUndefined();
    expect(live.body.toString('utf8')).toMatch(/^(:|data:|event:|retry:|id:)/m);
  });
});
