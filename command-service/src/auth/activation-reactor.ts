import type { TutorEvent, UserEvent } from '@agency/contracts';
import { fold, tutor, user } from '@agency/domain';
import type { EventStore } from '@agency/platform';
import type { Reactor } from '../reactors/reactor';

export const TUTOR_LOGINS_REACTOR = 'tutor-logins';

/** The tutor's name as their own stream gives it (the latest contact details): what their login is called. */
export const tutorNameView = {
  initialState: (): string | null => null,
  evolve: (name: string | null, event: TutorEvent): string | null =>
    event.type === 'TutorRegistered' || event.type === 'TutorDetailsChanged'
      ? `${event.data.contact.firstName} ${event.data.contact.lastName}`
      : name,
};

/** The name a login was recorded with. */
export const loginNameView = {
  initialState: (): string | null => null,
  evolve: (name: string | null, event: UserEvent): string | null =>
    event.type === 'UserRegistered' ? event.data.name : name,
};

/** The login a tutor's activation records: the tutor's username, their name (or, lacking one, the username). */
export const tutorLoginOf = (
  activated: { tutorId: string; userId: string; username: string },
  name: string | null,
): user.UserCommand => ({
  type: 'RegisterUser',
  userId: activated.userId,
  username: activated.username,
  role: 'tutor',
  tutorId: activated.tutorId,
  name: name ?? activated.username,
});

/**
 * A tutor's activation (`TutorAccountActivated`, the decisive write, on the tutor's stream) is
 * followed by their login's own stream (`UserRegistered`), under the user id the activation names,
 * named as the tutor was at the activation (so a run that comes late records what the first would
 * have). A tutor erased before this ran gets no login: nothing of theirs may be recorded again.
 */
export function tutorLoginReactor({ store }: { store: EventStore }): Reactor {
  return {
    name: TUTOR_LOGINS_REACTOR,
    handles: ['TutorAccountActivated'],
    async react(event, act) {
      const activated = {
        tutorId: String(event.data.tutorId),
        userId: String(event.data.userId),
        username: String(event.data.username),
      };
      const history = (await store.readStream(tutor.tutorStream(activated.tutorId))).map((recorded) => ({
        revision: recorded.revision,
        event: { type: recorded.type, data: recorded.data } as never,
      }));
      const now = fold(
        tutor.tutorDecider,
        history.map(({ event }) => event),
      );
      if (now.status !== 'none' && now.erased) return;
      const name = fold(
        tutorNameView,
        history.filter(({ revision }) => revision <= event.revision).map(({ event }) => event),
      );
      await act(`login:${activated.userId}`).run(
        user.userStream(activated.userId),
        user.userDecider,
        tutorLoginOf(activated, name),
      );
    },
  };
}
