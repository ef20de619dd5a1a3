import { describe, expect, it } from 'vitest';
import { commandIdSlot, commandIdsByAction, keepsCommandId } from './command-id';
import { HttpError } from './http';

const counter = () => {
  let n = 0;
  return () => `id-${++n}`;
};

const network = new HttpError(0, 'network', 'The server could not be reached.');
const serverFailed = new HttpError(500, 'internal', 'Something went wrong on our side.');
const unavailable = new HttpError(503, 'http_503', 'Unavailable');
const inProgress = new HttpError(409, 'command_in_progress', 'This action is still being processed.');
const refused = new HttpError(409, 'conflict', 'This client already exists.');
const invalid = new HttpError(400, 'invalid_input', 'First name is required');

describe('the command id of a user action', () => {
  it('is kept while the outcome is unknown: no answer, a 5xx, or the first delivery still in progress', () => {
    for (const error of [network, serverFailed, unavailable, inProgress, new TypeError('Failed to fetch')]) {
      expect(keepsCommandId(error), String(error)).toBe(true);
    }
    for (const error of [refused, invalid, new HttpError(403, 'forbidden', 'No')]) {
      expect(keepsCommandId(error), String(error)).toBe(false);
    }
  });

  it('is reused by every retry of one action and renewed only once the action is settled', () => {
    const slot = commandIdSlot(counter());
    const first = slot.current();
    slot.settle(network);
    expect(slot.current()).toBe(first);
    slot.settle(inProgress);
    expect(slot.current()).toBe(first);
    slot.settle(serverFailed);
    expect(slot.current()).toBe(first);
    slot.settle();
    const next = slot.current();
    expect(next).not.toBe(first);
    slot.settle(invalid);
    expect(slot.current()).not.toBe(next);
  });

  it('for actions named by what they send: the same value again is a retry, another value a new action', () => {
    const ids = commandIdsByAction(counter());
    const twoHours = JSON.stringify({ engagementId: 'e1', date: '2026-03-02', duration: '2' });
    const threeHours = JSON.stringify({ engagementId: 'e1', date: '2026-03-02', duration: '3' });
    const first = ids.for(twoHours);
    ids.settle(twoHours, network);
    expect(ids.for(twoHours)).toBe(first);
    ids.settle(twoHours, inProgress);
    expect(ids.for(threeHours)).not.toBe(first);
    expect(ids.for(twoHours)).toBe(first);
    ids.settle(twoHours);
    expect(ids.for(twoHours)).not.toBe(first);
  });
});
