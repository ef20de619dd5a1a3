import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, inject, it } from 'vitest';

type Answer = { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer };

/** A raw GET (fetch would decompress on its own and hide what came over the wire). */
function get(path: string, acceptEncoding?: string): Promise<Answer> {
  const url = new URL(path, inject('baseUrl'));
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: acceptEncoding ? { 'accept-encoding': acceptEncoding } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * The built UI's main script: the largest one index.html names (its entry module or a
 * modulepreload); the entry itself may be a few bytes that start the rest.
 */
async function entryScript(): Promise<string> {
  const html = (await get('/login')).body.toString('utf8');
  const named = [
    ...html.matchAll(/<(?:script type="module"|link rel="modulepreload")[^>]*(?:src|href)="([^"]+\.js)"/g),
  ].map((match) => match[1] as string);
  expect(named, html).not.toHaveLength(0);
  const sizes = await Promise.all(named.map(async (path) => ({ path, size: (await get(path)).body.length })));
  return sizes.reduce((largest, script) => (script.size > largest.size ? script : largest)).path;
}

describe('the UI files are sent precompressed', () => {
  it('answers br or gzip as asked, Vary: Accept-Encoding, and the same bytes once decompressed', async () => {
    const path = await entryScript();
    const plain = await get(path);
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers['content-type']).toMatch(/javascript/);

    const br = await get(path, 'br, gzip');
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(br.headers['content-type']).toMatch(/javascript/);
    expect(br.headers['cache-control']).toContain('immutable');
    expect(br.body.length).toBeLessThan(plain.body.length);
    expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);

    const gz = await get(path, 'gzip');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers.vary).toMatch(/accept-encoding/i);
    expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);
  });
});
