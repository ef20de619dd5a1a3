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

/**
 * How many of the seeding's independent requests are in flight at once: each command waits for
 * the read models to show it, so one after another the seeding mostly waits; a few at a time keep
 * the product busy without queueing the whole demo at once.
 */
const AT_ONCE = 6;

/**
 * `work` for every item, at most AT_ONCE at a time, answering the results in the items' order.
 * For items that are independent of each other; the first failure stops the seeding.
 */
export async function inParallel<T, R>(items: readonly T[], work: (item: T, index: number) => Promise<R>) {
  const results: R[] = new Array(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (next < items.length && !failed) {
      const index = next++;
      try {
        results[index] = await work(items[index] as T, index);
      } catch (error) {
        // The others start nothing more: the seeding stops with this error.
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(AT_ONCE, items.length) }, worker));
  return results;
}
