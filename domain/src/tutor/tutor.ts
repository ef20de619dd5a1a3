import { type ContactDetails, type EngagementStart, LIMITS, type TutorEvent } from '@agency/contracts';
import { type Decider, DomainError } from '../shared/decider';
import { checkContact, checkDate, checkId, checkText } from '../shared/limits';
import { type TutorAccount, type TutorAction, type TutorLifecycleView, tutorActionAllowed } from './tutor-lifecycle';

type AccountState =
  | { status: 'notActivated' }
  | { status: 'activationSent'; expiresAt: string }
  | { status: 'activated'; userId: string };

type TutorDetails = {
  tutorId: string;
  username: string;
  invoicePrefix: string;
  contactId: string;
  startDate: string;
  endDate: string | null;
  account: AccountState;
  /**
   * Engagements started and not yet ended, by id, with their student: the tutor's current
   * students, decided on this stream so that starts and the termination are serialised.
   */
  engagements: Record<string, string>;
  /**
   * Every engagement ever put on the roster, ended ones included, in the order they started;
   * a start taken off as abandoned never ran, so it is not here. Invoicing reads it to know
   * which months the tutor taught in.
   */
  everOnRoster: string[];
  /**
   * The entries on the roster whose event carries what the engagement starts with: a reactor
   * records each in its own stream, however late (a stopped reactor resumes), so none of them is
   * ever taken off as abandoned.
   */
  recordedByReactor: string[];
  /** The tutor's personal data was erased: nothing can be recorded for them any more. */
  erased: boolean;
};

export type TutorState = { status: 'none' } | ({ status: 'active' | 'inactive' } & TutorDetails);

/**
 * Older starts put the engagement on the tutor's roster and then recorded it in its own stream in
 * the same command. Such an entry whose stream is still empty this long after is a start that
 * never finished (the process died in between and nobody retried): it is taken off as abandoned.
 * Starts that carry their terms on the roster are completed by a reactor and never abandoned.
 */
export const UNFINISHED_START_MS = 10 * 60 * 1000;

/** What the store says of one engagement on the roster: facts the caller reads, never a read model. */
export type RosterEntryFacts = {
  engagementId: string;
  /** Its own stream records its end. */
  ended: boolean;
  /** Its own stream holds anything at all (the start was recorded there). */
  recorded: boolean;
  /** When it was put on the roster (the event's recording time); null when unknown. */
  putOnRosterAt: string | null;
};

export type TutorCommand =
  | {
      type: 'RegisterTutor';
      tutorId: string;
      startDate: string;
      username: string;
      invoicePrefix: string;
      contact: ContactDetails;
    }
  | { type: 'ChangeTutorDetails'; contact: Omit<ContactDetails, 'id'> }
  /** A tutor with a current student (an engagement on the roster) cannot be terminated. */
  | { type: 'TerminateTutor'; endDate: string }
  | { type: 'ReactivateTutor'; startDate: string }
  /** `linkId`: where the command service keeps the code until the mail reactor has sent it. */
  | { type: 'RecordActivationEmailSent'; sentTo: string; expiresAt: string; linkId: string }
  | { type: 'ActivateTutorAccount'; userId: string; username: string }
  /**
   * Puts an engagement on the roster before it is recorded in its own stream: with `engagement`
   * (what it starts with), a reactor records it there from the roster's event.
   */
  | { type: 'StartTutorEngagement'; engagementId: string; studentId: string; engagement?: EngagementStart }
  /** Takes it off: the engagement ended, or (`abandoned`) it was never recorded. */
  | { type: 'EndTutorEngagement'; engagementId: string; abandoned?: boolean }
  /**
   * Brings the roster up to date with the engagements' own streams: an engagement that has ended
   * there, or whose start was never recorded there in time, is taken off.
   */
  | { type: 'SettleRoster'; entries: RosterEntryFacts[] }
  /**
   * An engagement recorded before tutors kept a roster (found in the store by the caller) goes on
   * it, and off again when it has ended, so the roster's rules and invoicing count it too.
   */
  | { type: 'PutEarlierEngagementOnRoster'; engagementId: string; studentId: string; ended: boolean }
  /** Only a tutor who has left (terminated) is erased: a current tutor still teaches and is paid. */
  | { type: 'EraseTutor'; reason: string; erasedAt: string };

export const initialState = (): TutorState => ({ status: 'none' });

export function evolve(state: TutorState, event: TutorEvent): TutorState {
  if (event.type === 'TutorRegistered') {
    const { tutorId, username, invoicePrefix, startDate, contact } = event.data;
    return {
      status: 'active',
      tutorId,
      username,
      invoicePrefix,
      contactId: contact.id,
      startDate,
      endDate: null,
      account: { status: 'notActivated' },
      engagements: {},
      everOnRoster: [],
      recordedByReactor: [],
      erased: false,
    };
  }
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'TutorDetailsChanged':
      return state;
    case 'TutorErased':
      return { ...state, erased: true };
    case 'TutorTerminated':
      return { ...state, status: 'inactive', endDate: event.data.endDate };
    case 'TutorReactivated':
      return { ...state, status: 'active', startDate: event.data.startDate, endDate: null };
    case 'TutorActivationEmailSent':
      return { ...state, account: { status: 'activationSent', expiresAt: event.data.expiresAt } };
    case 'TutorAccountActivated':
      return { ...state, account: { status: 'activated', userId: event.data.userId } };
    case 'TutorEngagementStarted': {
      const { engagementId, studentId, engagement } = event.data;
      const everOnRoster = state.everOnRoster.includes(engagementId)
        ? state.everOnRoster
        : [...state.everOnRoster, engagementId];
      const recordedByReactor = engagement ? [...state.recordedByReactor, engagementId] : state.recordedByReactor;
      return {
        ...state,
        engagements: { ...state.engagements, [engagementId]: studentId },
        everOnRoster,
        recordedByReactor,
      };
    }
    case 'TutorEngagementEnded': {
      const { engagementId, abandoned } = event.data;
      const { [engagementId]: _ended, ...engagements } = state.engagements;
      const everOnRoster = abandoned ? state.everOnRoster.filter((id) => id !== engagementId) : state.everOnRoster;
      const recordedByReactor = state.recordedByReactor.filter((id) => id !== engagementId);
      return { ...state, engagements, everOnRoster, recordedByReactor };
    }
    default:
      // An event type this version does not know (written by a newer one): it changes nothing here.
      return state;
  }
}

/** The account as the lifecycle sees it: an expired activation code counts as never sent. */
export function accountOf(state: TutorState, now: Date): TutorAccount {
  if (state.status === 'none') return 'notActivated';
  const { account } = state;
  if (account.status === 'activationSent' && Date.parse(account.expiresAt) <= now.getTime()) return 'notActivated';
  return account.status;
}

/**
 * The engagements the tutor ever had, ended ones included and abandoned starts aside: the ones
 * whose spans say which months can be invoiced.
 */
export const engagementsEverOf = (state: TutorState): string[] => (state.status === 'none' ? [] : state.everOnRoster);

/** The tutor's current students: those of the engagements on the roster. */
export const currentStudentsOf = (state: TutorState): string[] =>
  state.status === 'none' ? [] : [...new Set(Object.values(state.engagements))];

/**
 * Whether an engagement other than `engagementId` has this student on the roster: a start's own
 * entry (put there by an earlier run of the same command) does not count against it.
 */
export const hasOtherOngoingWith = (state: TutorState, studentId: string, engagementId: string): boolean =>
  state.status !== 'none' &&
  Object.entries(state.engagements).some(([id, student]) => student === studentId && id !== engagementId);

export const lifecycleViewOf = (state: TutorState, now: Date): TutorLifecycleView => ({
  active: state.status === 'active',
  account: accountOf(state, now),
  currentStudents: currentStudentsOf(state).length,
});

const REFUSALS: Record<TutorAction, (view: TutorLifecycleView) => string> = {
  terminate: (view) =>
    view.active
      ? `This tutor still has ${view.currentStudents} current student${view.currentStudents === 1 ? '' : 's'}. End their engagements before terminating the tutor.`
      : 'This tutor is already inactive.',
  reactivate: () => 'This tutor is already active.',
  sendActivation: (view) =>
    !view.active
      ? 'An activation email can only be sent to an active tutor.'
      : view.account === 'activated'
        ? "This tutor's account is already activated."
        : 'An activation email has already been sent and has not expired yet.',
  grantPartner: () => 'This tutor has no activated account yet.',
};

/** A tutor takes new students only while active: refused, in words, for an unknown or inactive one. */
export function checkMayStartEngagement(state: TutorState): asserts state is Exclude<TutorState, { status: 'none' }> {
  if (state.status === 'none') throw new DomainError('not_found', 'There is no such tutor.');
  if (state.status !== 'active') {
    throw new DomainError('conflict', 'This tutor is inactive: reactivate the tutor before adding students.');
  }
}

/**
 * The roster entries the store shows to be over: ended in their own stream, or older starts never
 * recorded in time (one a reactor records is only ever late, never abandoned).
 */
function settledEntries(state: TutorDetails, entries: RosterEntryFacts[], now: Date): TutorEvent[] {
  const { tutorId } = state;
  return entries.flatMap((entry): TutorEvent[] => {
    const { engagementId } = entry;
    if (!state.engagements[engagementId]) return [];
    if (entry.ended) return [{ type: 'TutorEngagementEnded', data: { tutorId, engagementId } }];
    const putOnAt = entry.putOnRosterAt === null ? 0 : Date.parse(entry.putOnRosterAt);
    if (
      !entry.recorded &&
      !state.recordedByReactor.includes(engagementId) &&
      now.getTime() - putOnAt > UNFINISHED_START_MS
    ) {
      return [{ type: 'TutorEngagementEnded', data: { tutorId, engagementId, abandoned: true } }];
    }
    return [];
  });
}

/**
 * Off the roster, once. The end is a fact of the engagement's own stream, so it is recorded whatever
 * became of the tutor since (even erased: the event holds no personal data), and the reactor that
 * follows an engagement's end is never stopped by it.
 */
function offRoster(
  state: TutorDetails,
  { engagementId, abandoned }: { engagementId: string; abandoned?: boolean },
): TutorEvent[] {
  if (!state.engagements[engagementId]) return [];
  const { tutorId } = state;
  return [{ type: 'TutorEngagementEnded', data: { tutorId, engagementId, ...(abandoned ? { abandoned } : {}) } }];
}

/** Once only: an engagement the roster ever had is not put on it again (whatever the tutor's status now). */
function earlierEngagement(
  state: TutorDetails,
  { engagementId, studentId, ended }: { engagementId: string; studentId: string; ended: boolean },
): TutorEvent[] {
  if (state.everOnRoster.includes(engagementId) || state.engagements[engagementId]) return [];
  const { tutorId } = state;
  return [
    { type: 'TutorEngagementStarted', data: { tutorId, engagementId, studentId } },
    ...(ended ? [{ type: 'TutorEngagementEnded' as const, data: { tutorId, engagementId } }] : []),
  ];
}

/** Throws the reason in words when the lifecycle does not allow `action` now. */
export function requireAllowed(view: TutorLifecycleView, action: TutorAction) {
  if (!tutorActionAllowed(view, action)) throw new DomainError('conflict', REFUSALS[action](view));
}

export function decide(command: TutorCommand, state: TutorState, now: Date): TutorEvent[] {
  if (command.type === 'RegisterTutor') {
    if (state.status !== 'none') throw new DomainError('conflict', 'This tutor already exists.');
    checkId(command.tutorId, 'id', 'The tutor id');
    checkDate(command.startDate, 'startDate');
    checkText(command.username, {
      field: 'username',
      label: 'Username',
      max: LIMITS.maxTutorUsernameLength,
      required: true,
    });
    checkText(command.invoicePrefix, {
      field: 'invoicePrefix',
      label: 'Invoice Prefix',
      max: LIMITS.maxInvoicePrefixLength,
      required: true,
    });
    checkContact(command.contact);
    const { tutorId, startDate, username, invoicePrefix, contact } = command;
    return [{ type: 'TutorRegistered', data: { tutorId, startDate, username, invoicePrefix, contact } }];
  }
  if (state.status === 'none') throw new DomainError('not_found', 'There is no such tutor.');
  const { tutorId } = state;
  // These only record what the engagements' own streams already say: no change to the tutor.
  if (command.type === 'SettleRoster') return settledEntries(state, command.entries, now);
  if (command.type === 'PutEarlierEngagementOnRoster') return earlierEngagement(state, command);
  if (command.type === 'EndTutorEngagement') return offRoster(state, command);
  if (state.erased) throw new DomainError('conflict', "This tutor's personal data was erased.");
  switch (command.type) {
    case 'EraseTutor':
      if (state.status !== 'inactive') {
        throw new DomainError('conflict', 'Only a tutor who has left can be erased: terminate the tutor first.');
      }
      checkText(command.reason, { field: 'reason', label: 'Reason', required: true });
      return [{ type: 'TutorErased', data: { tutorId, reason: command.reason, erasedAt: command.erasedAt } }];
    case 'ChangeTutorDetails':
      checkContact(command.contact);
      return [{ type: 'TutorDetailsChanged', data: { tutorId, contact: { ...command.contact, id: state.contactId } } }];
    case 'TerminateTutor':
      checkDate(command.endDate, 'endDate');
      requireAllowed(lifecycleViewOf(state, now), 'terminate');
      if (command.endDate < state.startDate) {
        throw new DomainError('invalid', 'The end date cannot be before the start date.', {
          endDate: 'The end date cannot be before the start date',
        });
      }
      return [{ type: 'TutorTerminated', data: { tutorId, endDate: command.endDate } }];
    case 'ReactivateTutor':
      checkDate(command.startDate, 'startDate');
      requireAllowed(lifecycleViewOf(state, now), 'reactivate');
      if (state.endDate && command.startDate < state.endDate) {
        throw new DomainError('invalid', 'The new start date cannot be before the end date.', {
          startDate: 'The new start date cannot be before the end date',
        });
      }
      return [{ type: 'TutorReactivated', data: { tutorId, startDate: command.startDate } }];
    case 'RecordActivationEmailSent':
      checkText(command.sentTo, { field: 'email', label: 'Email', max: LIMITS.maxEmailLength, required: true });
      checkId(command.linkId, 'linkId', 'The link id');
      requireAllowed(lifecycleViewOf(state, now), 'sendActivation');
      return [
        {
          type: 'TutorActivationEmailSent',
          data: { tutorId, sentTo: command.sentTo, expiresAt: command.expiresAt, linkId: command.linkId },
        },
      ];
    case 'ActivateTutorAccount': {
      if (state.status !== 'active') throw new DomainError('conflict', 'This tutor is no longer active.');
      if (state.account.status === 'activated') {
        throw new DomainError('conflict', 'This account is already activated. Please log in.');
      }
      checkText(command.username, { field: 'username', label: 'Username', max: LIMITS.maxUsernameLength });
      if (command.username.toLowerCase() !== state.username.toLowerCase()) {
        throw new DomainError('invalid', 'Please enter the username given in your activation email.', {
          username: 'Please enter the username given in your activation email',
        });
      }
      return [{ type: 'TutorAccountActivated', data: { tutorId, userId: command.userId, username: state.username } }];
    }
    case 'StartTutorEngagement': {
      const { engagementId, studentId, engagement } = command;
      // A retry of the same start finds it already on the roster.
      if (state.engagements[engagementId] === studentId) return [];
      if (state.engagements[engagementId]) throw new DomainError('conflict', 'This engagement already exists.');
      checkMayStartEngagement(state);
      if (Object.values(state.engagements).includes(studentId)) {
        throw new DomainError('conflict', 'This tutor already has an ongoing engagement with this student.', {
          studentId: 'Already an ongoing student of this tutor',
        });
      }
      return [
        {
          type: 'TutorEngagementStarted',
          data: { tutorId, engagementId, studentId, ...(engagement ? { engagement } : {}) },
        },
      ];
    }
    default: {
      const _never: never = command;
      return _never;
    }
  }
}

export const tutorDecider: Decider<TutorCommand, TutorEvent, TutorState> = { initialState, evolve, decide };

export const tutorStream = (tutorId: string) => `tutor-${tutorId}`;

export { offRosterAtEnd } from './off-roster-at-end';
export {
  type LifecycleCase,
  lifecycleCases,
  type TutorAccount,
  type TutorAction,
  tutorActionAllowed,
} from './tutor-lifecycle';
export { suggestTutorNames, type TakenNames } from './tutor-names';
