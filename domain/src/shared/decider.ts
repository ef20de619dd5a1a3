/** Why a command was refused, in words a person understands. `code` maps to an HTTP status. */
export class DomainError extends Error {
  constructor(
    readonly code: 'not_found' | 'conflict' | 'invalid' | 'forbidden' | 'locked',
    message: string,
    readonly fields?: Record<string, string>,
  ) {
    super(message);
  }
}

export type Decider<Command, Event, State> = {
  initialState: () => State;
  evolve: (state: State, event: Event) => State;
  decide: (command: Command, state: State, now: Date) => Event[];
};

export function fold<Event, State>(
  decider: Pick<Decider<unknown, Event, State>, 'initialState' | 'evolve'>,
  events: Event[],
) {
  return events.reduce(decider.evolve, decider.initialState());
}
