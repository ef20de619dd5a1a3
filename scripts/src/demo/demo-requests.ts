import { randomUUID } from 'node:crypto';
import type { RunningProduct } from '../product';

/** A GET through the product's command app as the seeding admin; anything but 200 stops the seeding. */
export function getAs(product: RunningProduct, token: string) {
  const headers = { authorization: `Bearer ${token}` };
  return async <T>(url: string): Promise<T> => {
    const response = await product.command.app.inject({ method: 'GET', url, headers });
    if (response.statusCode !== 200) throw new Error(`${url} answered ${response.statusCode}: ${response.body}`);
    return response.json() as T;
  };
}

/** A command through the product's command app as the seeding admin, with a fresh command id; anything but 200 stops the seeding. */
export function postAs(product: RunningProduct, token: string) {
  const headers = { authorization: `Bearer ${token}` };
  return async <T>(url: string, payload: Record<string, unknown>): Promise<T> => {
    const response = await product.command.app.inject({
      method: 'POST',
      url,
      headers,
      payload: { commandId: randomUUID(), ...payload },
    });
    if (response.statusCode !== 200) throw new Error(`${url} answered ${response.statusCode}: ${response.body}`);
    return response.json() as T;
  };
}
