import { expect } from 'vitest';
import { type Decider, DomainError, fold } from '../shared/decider';

/** One shape for every aggregate's rule tests: given these events, when this command, then… */
export function specFor<Command, Event, State>(
  decider: Decider<Command, Event, State>,
  now = new Date('2026-11-22T10:00:00Z'),
) {
  return (given: Event[]) => ({
    when: (command: Command) => {
      const run = () => decider.decide(command, fold(decider, given), now);
      return {
        thenEvents: (expected: Event[]) => expect(run()).toEqual(expected),
        thenRefused: (code: DomainError['code'], message?: string | RegExp) => {
          let caught: unknown;
          try {
            run();
          } catch (error) {
            caught = error;
          }
          expect(caught).toBeInstanceOf(DomainError);
          expect((caught as DomainError).code).toBe(code);
          if (message) expect((caught as DomainError).message).toMatch(message);
        },
      };
    },
  });
}
