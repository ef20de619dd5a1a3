import { eventCatalogue } from '@agency/contracts';
import { describe, expect, it } from 'vitest';
import { projections } from './index';
import { handlerFor } from './projection';

/** Projections ignore event types they do not know: no handler, so the runner passes them by. */
describe('projections and unknown event types', () => {
  it('have no handler for a type no release has written yet, nor for inherited names', () => {
    for (const projection of projections) {
      for (const type of ['SomethingNewHappened', 'toString', 'constructor', '__proto__']) {
        expect(handlerFor(projection, type), `${projection.name} ${type}`).toBeUndefined();
      }
    }
  });

  it('handle only types in the event catalogue', () => {
    for (const projection of projections) {
      for (const type of Object.keys(projection.handlers)) {
        expect(eventCatalogue.has(type), `${projection.name} handles ${type}`).toBe(true);
      }
    }
  });
});
