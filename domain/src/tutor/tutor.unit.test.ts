import type { ContactDetails, TutorEvent } from '@agency/contracts';
import { describe, expect, it } from 'vitest';
import { DomainError, fold } from '../shared/decider';
import { specFor } from '../testing/given-when-then';
import {
  checkMayStartEngagement,
  engagementsEverOf,
  hasOtherOngoingWith,
  lifecycleViewOf,
  type RosterEntryFacts,
  requireAllowed,
  type TutorCommand,
  tutorDecider,
  UNFINISHED_START_MS,
} from './tutor';
import { type LifecycleCase, lifecycleCases, type TutorAction } from './tutor-lifecycle';

const now = new Date('2026-11-22T10:00:00Z');
const given = specFor(tutorDecider, now);
const contact: ContactDetails = {
  id: 'contact-1',
  firstName: 'Jane',
  lastName: "O'Brien",
  address: ['2 Mill Lane'],
  postcode: 'OX2 6AA',
  email: 'jane@example.com',
  phone: [],
  dob: null,
};
const registered: TutorEvent = {
  type: 'TutorRegistered',
  data: { tutorId: 't1', startDate: '2026-01-05', username: 'jobrien', invoicePrefix: 'JO', contact },
};
const sent = (expiresAt = '2026-11-29T10:00:00.000Z'): TutorEvent => ({
  type: 'TutorActivationEmailSent',
  data: { tutorId: 't1', sentTo: 'jane@example.com', expiresAt, linkId: 'link-1' },
});
const activated: TutorEvent = {
  type: 'TutorAccountActivated',
  data: { tutorId: 't1', userId: 'u1', username: 'jobrien' },
};
const terminated: TutorEvent = { type: 'TutorTerminated', data: { tutorId: 't1', endDate: '2026-06-30' } };

const engaged = (engagementId: string, studentId: string): TutorEvent => ({
  type: 'TutorEngagementStarted',
  data: { tutorId: 't1', engagementId, studentId },
});
const ended = (engagementId: string): TutorEvent => ({
  type: 'TutorEngagementEnded',
  data: { tutorId: 't1', engagementId },
});
const begins = {
  startDate: '2026-11-23',
  subjects: ['Maths'],
  ratePence: 4000,
  commissionBp: 2500,
  partnerBp: 0,
};
/** A start put on the roster with what the engagement starts with: a reactor records it. */
const engagedWithStart = (engagementId: string, studentId: string): TutorEvent => ({
  type: 'TutorEngagementStarted',
  data: { tutorId: 't1', engagementId, studentId, engagement: begins },
});

function historyFor(row: LifecycleCase): TutorEvent[] {
  const events: TutorEvent[] = [registered];
  if (row.account === 'activationSent') events.push(sent());
  if (row.account === 'activated') events.push(sent(), activated);
  for (let n = 1; n <= row.currentStudents; n++) events.push(engaged(`e${n}`, `s${n}`));
  if (!row.active) events.push(terminated);
  return events;
}

const commandFor = (action: Exclude<TutorAction, 'grantPartner'>): TutorCommand => {
  switch (action) {
    case 'terminate':
      return { type: 'TerminateTutor', endDate: '2026-11-22' };
    case 'reactivate':
      return { type: 'ReactivateTutor', startDate: '2026-11-22' };
    case 'sendActivation':
      return {
        type: 'RecordActivationEmailSent',
        sentTo: 'jane@example.com',
        expiresAt: '2026-11-29T10:00:00.000Z',
        linkId: 'link-1',
      };
  }
};

const eventOf = {
  terminate: 'TutorTerminated',
  reactivate: 'TutorReactivated',
  sendActivation: 'TutorActivationEmailSent',
} as const;

describe('tutor lifecycle rules (the table the UI machine is tested on too)', () => {
  const name = (row: LifecycleCase) =>
    `${row.active ? 'active' : 'inactive'}, ${row.account}, ${row.currentStudents} current students`;

  for (const row of lifecycleCases) {
    describe(name(row), () => {
      for (const action of ['terminate', 'reactivate', 'sendActivation'] as const) {
        const allowed = row.allowed.includes(action);
        it(`${allowed ? 'allows' : 'refuses'} ${action}`, () => {
          const then = given(historyFor(row)).when(commandFor(action));
          if (allowed) then.thenEvents([expect.objectContaining({ type: eventOf[action] })]);
          else then.thenRefused('conflict');
        });
      }
      it(`${row.allowed.includes('grantPartner') ? 'allows' : 'refuses'} the partner role`, () => {
        const view = lifecycleViewOf(fold(tutorDecider, historyFor(row)), now);
        const check = () => requireAllowed(view, 'grantPartner');
        if (row.allowed.includes('grantPartner')) expect(check).not.toThrow();
        else expect(check).toThrow(DomainError);
      });
    });
  }
});

describe('tutor', () => {
  it('registers a tutor with username, invoice prefix and contact', () => {
    given([])
      .when({
        type: 'RegisterTutor',
        tutorId: 't1',
        startDate: '2026-01-05',
        username: 'jobrien',
        invoicePrefix: 'JO',
        contact,
      })
      .thenEvents([registered]);
    given([registered])
      .when({
        type: 'RegisterTutor',
        tutorId: 't1',
        startDate: '2026-01-05',
        username: 'x',
        invoicePrefix: 'X',
        contact,
      })
      .thenRefused('conflict', 'already exists');
  });

  it('refuses anything for an unknown tutor', () => {
    given([]).when({ type: 'ReactivateTutor', startDate: '2026-11-22' }).thenRefused('not_found', 'no such tutor');
  });

  it('changes contact details, keeping the contact id', () => {
    const { id: _id, ...rest } = contact;
    given([registered])
      .when({ type: 'ChangeTutorDetails', contact: { ...rest, postcode: 'OX1 1AA' } })
      .thenEvents([
        { type: 'TutorDetailsChanged', data: { tutorId: 't1', contact: { ...contact, postcode: 'OX1 1AA' } } },
      ]);
  });

  it('terminates with an end date, refusing one before the start date', () => {
    given([registered])
      .when({ type: 'TerminateTutor', endDate: '2026-11-22' })
      .thenEvents([{ type: 'TutorTerminated', data: { tutorId: 't1', endDate: '2026-11-22' } }]);
    given([registered])
      .when({ type: 'TerminateTutor', endDate: '2025-12-31' })
      .thenRefused('invalid', 'before the start date');
  });

  it('refuses to terminate a tutor with current students (the roster on this stream), saying why', () => {
    given([registered, engaged('e1', 's1'), engaged('e2', 's2')])
      .when({ type: 'TerminateTutor', endDate: '2026-11-22' })
      .thenRefused('conflict', 'still has 2 current students');
    given([registered, engaged('e1', 's1'), engaged('e2', 's2'), ended('e1')])
      .when({ type: 'TerminateTutor', endDate: '2026-11-22' })
      .thenRefused('conflict', /still has 1 current student\./);
    given([registered, engaged('e1', 's1'), ended('e1')])
      .when({ type: 'TerminateTutor', endDate: '2026-11-22' })
      .thenEvents([{ type: 'TutorTerminated', data: { tutorId: 't1', endDate: '2026-11-22' } }]);
  });

  it('reactivates from a start date on or after the end date', () => {
    given([registered, terminated])
      .when({ type: 'ReactivateTutor', startDate: '2026-06-30' })
      .thenEvents([{ type: 'TutorReactivated', data: { tutorId: 't1', startDate: '2026-06-30' } }]);
    given([registered, terminated])
      .when({ type: 'ReactivateTutor', startDate: '2026-06-01' })
      .thenRefused('invalid', 'before the end date');
  });

  it('lets a new activation email go out once the last code has expired', () => {
    given([registered, sent('2026-11-20T00:00:00.000Z')])
      .when({
        type: 'RecordActivationEmailSent',
        sentTo: 'jane@example.com',
        expiresAt: '2026-11-29T10:00:00.000Z',
        linkId: 'link-1',
      })
      .thenEvents([sent('2026-11-29T10:00:00.000Z')]);
  });

  it('activates the account for the tutor username only, once, while active', () => {
    given([registered, sent()])
      .when({ type: 'ActivateTutorAccount', userId: 'u1', username: 'JOBrien' })
      .thenEvents([activated]);
    given([registered, sent()])
      .when({ type: 'ActivateTutorAccount', userId: 'u1', username: 'someone' })
      .thenRefused('invalid', 'username given in your activation email');
    given([registered, sent(), activated])
      .when({ type: 'ActivateTutorAccount', userId: 'u2', username: 'jobrien' })
      .thenRefused('conflict', 'already activated');
    given([registered, sent(), terminated])
      .when({ type: 'ActivateTutorAccount', userId: 'u1', username: 'jobrien' })
      .thenRefused('conflict', 'no longer active');
  });
});

describe("the tutor's roster of ongoing engagements", () => {
  const start = { type: 'StartTutorEngagement' as const, engagementId: 'e1', studentId: 's1' };

  it('puts a new engagement on the roster of an active tutor', () => {
    given([registered])
      .when(start)
      .thenEvents([engaged('e1', 's1')]);
  });

  it('refuses a second ongoing engagement with the same student, allows one with another', () => {
    given([registered, engaged('e1', 's1')])
      .when({ ...start, engagementId: 'e2' })
      .thenRefused('conflict', 'already has an ongoing engagement with this student');
    given([registered, engaged('e1', 's1')])
      .when({ ...start, engagementId: 'e2', studentId: 's2' })
      .thenEvents([engaged('e2', 's2')]);
  });

  it('allows the student again once their engagement ended', () => {
    given([registered, engaged('e1', 's1'), ended('e1')])
      .when({ ...start, engagementId: 'e2' })
      .thenEvents([engaged('e2', 's1')]);
  });

  it('refuses a new engagement for a terminated tutor, and an unknown tutor', () => {
    given([registered, terminated]).when(start).thenRefused('conflict', 'inactive');
    given([]).when(start).thenRefused('not_found', 'no such tutor');
  });

  it('records nothing for a start already on the roster (a retry)', () => {
    given([registered, engaged('e1', 's1')])
      .when(start)
      .thenEvents([]);
    given([registered, engagedWithStart('e1', 's1')])
      .when({ ...start, engagement: begins })
      .thenEvents([]);
  });

  it('carries what the engagement starts with, for the reactor that records it in its own stream', () => {
    given([registered])
      .when({ ...start, engagement: begins })
      .thenEvents([engagedWithStart('e1', 's1')]);
  });

  it("does not count a start's own entry as another ongoing engagement with its student", () => {
    const state = fold(tutorDecider, [registered, engagedWithStart('e1', 's1')]);
    expect(hasOtherOngoingWith(state, 's1', 'e1')).toBe(false);
    expect(hasOtherOngoingWith(state, 's1', 'e2')).toBe(true);
    expect(hasOtherOngoingWith(state, 's2', 'e2')).toBe(false);
    expect(hasOtherOngoingWith(fold(tutorDecider, [registered, engaged('e1', 's1'), ended('e1')]), 's1', 'e2')).toBe(
      false,
    );
  });

  it('takes an engagement off the roster once, abandoned ones marked as such', () => {
    given([registered, engaged('e1', 's1')])
      .when({ type: 'EndTutorEngagement', engagementId: 'e1' })
      .thenEvents([ended('e1')]);
    given([registered, engaged('e1', 's1')])
      .when({ type: 'EndTutorEngagement', engagementId: 'e1', abandoned: true })
      .thenEvents([{ type: 'TutorEngagementEnded', data: { tutorId: 't1', engagementId: 'e1', abandoned: true } }]);
    given([registered, engaged('e1', 's1'), ended('e1')])
      .when({ type: 'EndTutorEngagement', engagementId: 'e1' })
      .thenEvents([]);
  });

  it('takes an ended engagement off whatever became of the tutor: the end is a fact of its own stream', () => {
    const erased: TutorEvent = {
      type: 'TutorErased',
      data: { tutorId: 't1', reason: 'asked', erasedAt: '2026-11-22T09:00:00.000Z' },
    };
    given([registered, engaged('e1', 's1'), terminated, erased])
      .when({ type: 'EndTutorEngagement', engagementId: 'e1' })
      .thenEvents([ended('e1')]);
  });
});

describe("settling the roster from the engagements' own streams", () => {
  const entry = (engagementId: string, facts: Partial<RosterEntryFacts> = {}): RosterEntryFacts => ({
    engagementId,
    ended: false,
    recorded: true,
    putOnRosterAt: '2026-11-22T09:00:00.000Z',
    ...facts,
  });
  const settle = (...entries: RosterEntryFacts[]): TutorCommand => ({ type: 'SettleRoster', entries });
  const ago = (ms: number) => new Date(now.getTime() - ms).toISOString();

  it('takes off an engagement that ended in its own stream', () => {
    given([registered, engaged('e1', 's1'), engaged('e2', 's2')])
      .when(settle(entry('e1', { ended: true }), entry('e2')))
      .thenEvents([ended('e1')]);
  });

  it('takes off as abandoned a start never recorded in its own stream in time, and leaves a fresh one', () => {
    given([registered, engaged('e1', 's1'), engaged('e2', 's2')])
      .when(
        settle(
          entry('e1', { recorded: false, putOnRosterAt: ago(UNFINISHED_START_MS + 1) }),
          entry('e2', { recorded: false, putOnRosterAt: ago(UNFINISHED_START_MS) }),
        ),
      )
      .thenEvents([{ type: 'TutorEngagementEnded', data: { tutorId: 't1', engagementId: 'e1', abandoned: true } }]);
    given([registered, engaged('e1', 's1')])
      .when(settle(entry('e1', { recorded: false, putOnRosterAt: null })))
      .thenEvents([{ type: 'TutorEngagementEnded', data: { tutorId: 't1', engagementId: 'e1', abandoned: true } }]);
  });

  it('never abandons a start that carries its terms: the reactor records it, however late', () => {
    given([registered, engagedWithStart('e1', 's1')])
      .when(settle(entry('e1', { recorded: false, putOnRosterAt: ago(UNFINISHED_START_MS * 10) })))
      .thenEvents([]);
    given([registered, engagedWithStart('e1', 's1')])
      .when(settle(entry('e1', { ended: true })))
      .thenEvents([ended('e1')]);
  });

  it('records nothing for running engagements, or entries no longer on the roster', () => {
    given([registered, engaged('e1', 's1')])
      .when(settle(entry('e1', { putOnRosterAt: ago(UNFINISHED_START_MS * 10) })))
      .thenEvents([]);
    given([registered, engaged('e1', 's1'), ended('e1')])
      .when(settle(entry('e1', { ended: true })))
      .thenEvents([]);
  });
});

describe('starting an engagement on the roster', () => {
  it('is for an active tutor only, refused in words for an unknown or inactive one', () => {
    expect(() => checkMayStartEngagement(fold(tutorDecider, [registered]))).not.toThrow();
    expect(() => checkMayStartEngagement(fold(tutorDecider, []))).toThrow(/no such tutor/);
    expect(() => checkMayStartEngagement(fold(tutorDecider, [registered, terminated]))).toThrow(
      expect.objectContaining({ code: 'conflict', message: expect.stringMatching(/inactive/) }),
    );
  });
});

describe('the engagements a tutor ever had (which months can be invoiced)', () => {
  const abandon = (engagementId: string): TutorEvent => ({
    type: 'TutorEngagementEnded',
    data: { tutorId: 't1', engagementId, abandoned: true },
  });

  it('names every engagement ever on the roster, ended ones included, in the order they started', () => {
    const state = fold(tutorDecider, [registered, engaged('e1', 's1'), engaged('e2', 's2'), ended('e1')]);
    expect(engagementsEverOf(state)).toEqual(['e1', 'e2']);
  });

  it('leaves out a start taken off as abandoned: it never ran', () => {
    const state = fold(tutorDecider, [registered, engaged('e1', 's1'), engaged('e2', 's2'), abandon('e2')]);
    expect(engagementsEverOf(state)).toEqual(['e1']);
  });

  it('names none for an unknown tutor, and each engagement once', () => {
    expect(engagementsEverOf(fold(tutorDecider, []))).toEqual([]);
    const state = fold(tutorDecider, [registered, engaged('e1', 's1'), engaged('e1', 's1')]);
    expect(engagementsEverOf(state)).toEqual(['e1']);
  });
});

describe('engagements recorded before tutors kept a roster', () => {
  const earlier = (ended: boolean): TutorCommand => ({
    type: 'PutEarlierEngagementOnRoster',
    engagementId: 'e1',
    studentId: 's1',
    ended,
  });

  it('go on the roster, and off again when they have ended, whatever the tutor is now', () => {
    given([registered])
      .when(earlier(false))
      .thenEvents([engaged('e1', 's1')]);
    given([registered, terminated])
      .when(earlier(true))
      .thenEvents([engaged('e1', 's1'), ended('e1')]);
  });

  it('go on once: an engagement the roster ever had is not put on again', () => {
    given([registered, engaged('e1', 's1')])
      .when(earlier(false))
      .thenEvents([]);
    given([registered, engaged('e1', 's1'), ended('e1')])
      .when(earlier(true))
      .thenEvents([]);
  });

  it('count for invoicing once on', () => {
    const state = fold(tutorDecider, [registered, engaged('e1', 's1'), ended('e1')]);
    expect(engagementsEverOf(state)).toEqual(['e1']);
  });
});
