import { randomUUID } from 'node:crypto';
import { expect, inject } from 'vitest';

/** Commands over HTTP as a signed-in user, for a browser test's set-up through the real routes. */
export function apiAs(token: string) {
  return {
    token,
    post: async (path: string, body: object) => {
      const response = await fetch(`${inject('baseUrl')}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ commandId: randomUUID(), ...body }),
      });
      expect(response.status, await response.clone().text()).toBe(200);
      return response.json();
    },
  };
}

export async function adminApi() {
  const login = await fetch(`${inject('baseUrl')}/auth/local`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(inject('admin')),
  });
  expect(login.status).toBe(200);
  return apiAs((await login.json()).token);
}

/** A complete contact body for a family or a tutor. */
export const contactFor = (firstName: string, lastName: string) => ({
  firstName,
  lastName,
  address: ['3 Turl Street', 'Oxford'],
  postcode: 'OX1 3DH',
  email: `${firstName}.${lastName}@example.com`.toLowerCase(),
  phone: [{ type: 'Mobile', number: '07700 900777' }],
});
