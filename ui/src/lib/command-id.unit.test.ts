import { describe, expect, it } from 'vitest';
import { commandIdsByAction, keepsCommandId } from './command-id';
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
    const ids = commandIdsByAction(counter());
    const first = ids.idFor('delete');
    ids.done('delete', network);
    expect(ids.idFor('delete')).toBe(first);
    ids.done('delete', inProgress);
    expect(ids.idFor('delete')).toBe(first);
    ids.done('delete', serverFailed);
    expect(ids.idFor('delete')).toBe(first);
    ids.done('delete');
    const next = ids.idFor('delete');
    expect(next).not.toBe(first);
    ids.done('delete', invalid);
    expect(ids.idFor('delete')).not.toBe(next);
  });

  it('is never shared by two actions of one page, even when the first is still pending after a network failure', () => {
    const ids = commandIdsByAction(counter());
    const place = ids.idFor('place');
    ids.done('place', network);
    const remove = ids.idFor('delete');
    expect(remove).not.toBe(place);
    expect(ids.idFor('move:event-2')).not.toBe(ids.idFor('move:event-3'));
    ids.done('delete');
    expect(ids.idFor('place')).toBe(place);
  });

  it('for actions named by what they send: the same value again is a retry, another value a new action', () => {
    const ids = commandIdsByAction(counter());
    const twoHours = JSON.stringify({ engagementId: 'e1', date: '2026-03-02', duration: '2' });
    const threeHours = JSON.stringify({ engagementId: 'e1', date: '2026-03-02', duration: '3' });
    const first = ids.idFor(twoHours);
    ids.done(twoHours, network);
    expect(ids.idFor(twoHours)).toBe(first);
    ids.done(twoHours, inProgress);
    expect(ids.idFor(threeHours)).not.toBe(first);
    expect(ids.idFor(twoHours)).toBe(first);
    ids.done(twoHours);
    expect(ids.idFor(twoHours)).not.toBe(first);
  });
});
