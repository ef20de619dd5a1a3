import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { TestProduct } from './test-product';

/** A contact as the tests record them: an Oxford address, an e-mail made of the names, one mobile. */
export const contact = (firstName: string, lastName: string) => ({
  firstName,
  lastName,
  address: ['1 High Street', '', 'Oxford', ''],
  postcode: 'OX1 1AA',
  email: `${firstName}.${lastName}@example.com`.toLowerCase(),
  phone: [{ type: 'Mobile', number: '07700 900001' }],
});

/**
 * A test's requests to its product, as `token` (by default whoever `defaultToken` names when the
 * request is made; both are read late, as a test assigns them in `beforeAll`):
 * - `post`: a command (a fresh `commandId` added), injected into the app;
 * - `ok`: the same, expected to answer 200, its answer's body;
 * - `get`: a query through the app's port, its status and body.
 */
export function testRequests(product: () => TestProduct, defaultToken: () => string) {
  const post = (url: string, payload: object, token = defaultToken()) =>
    product().command.app.inject({
      method: 'POST',
      url,
      payload: { commandId: randomUUID(), ...payload },
      headers: { authorization: `Bearer ${token}` },
    });
  const ok = async (url: string, payload: object, token = defaultToken()) => {
    const response = await post(url, payload, token);
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  };
  const get = async (url: string, token = defaultToken()) => {
    const response = await fetch(`${product().url}${url}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: response.status, body: await response.json() };
  };
  return { post, ok, get };
}
