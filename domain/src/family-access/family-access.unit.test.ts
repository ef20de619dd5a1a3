import type { FamilyAccessEvent, FamilyErasureRequestEvent } from '@agency/contracts';
import { describe, it } from 'vitest';
import { specFor } from '../testing/given-when-then';
import { erasureRequestDecider } from './erasure-request';
import { familyAccessDecider } from './family-access';

const given = specFor(familyAccessDecider);
const who = { contactId: 'c1', clientId: 'f1' };
const off: FamilyAccessEvent = { type: 'FamilyAccessTurnedOff', data: who };
const on: FamilyAccessEvent = { type: 'FamilyAccessTurnedOn', data: who };
const link = { type: 'RequestSignInLink', ...who, linkId: 'link-1', expiresAt: '2026-11-22T11:15:00.000Z' } as const;

describe('a family contact’s access', () => {
  it('is on from the start: a link is recorded with its id and expiry, never its secret', () => {
    given([])
      .when(link)
      .thenEvents([
        {
          type: 'FamilySignInLinkRequested',
          data: { ...who, linkId: 'link-1', expiresAt: '2026-11-22T11:15:00.000Z' },
        },
      ]);
    given([])
      .when({ type: 'RecordSignIn', ...who })
      .thenEvents([{ type: 'FamilySignedIn', data: who }]);
  });

  it('turned off, gets no link and no sign-in', () => {
    given([off]).when(link).thenRefused('forbidden');
    given([off])
      .when({ type: 'RecordSignIn', ...who })
      .thenRefused('forbidden');
  });

  it('is turned off and on once each: a repeat records nothing', () => {
    given([])
      .when({ type: 'TurnAccessOff', ...who })
      .thenEvents([off]);
    given([off])
      .when({ type: 'TurnAccessOff', ...who })
      .thenEvents([]);
    given([off])
      .when({ type: 'TurnAccessOn', ...who })
      .thenEvents([on]);
    given([off, on])
      .when({ type: 'TurnAccessOn', ...who })
      .thenEvents([]);
    given([off, on])
      .when({ type: 'RecordSignIn', ...who })
      .thenEvents([{ type: 'FamilySignedIn', data: who }]);
  });
});

const givenRequest = specFor(erasureRequestDecider);
const requested: FamilyErasureRequestEvent = { type: 'FamilyErasureRequested', data: who };

describe('a family’s request to be erased', () => {
  it('is recorded once until an admin decides it', () => {
    givenRequest([])
      .when({ type: 'RequestErasure', ...who })
      .thenEvents([requested]);
    givenRequest([requested])
      .when({ type: 'RequestErasure', ...who })
      .thenEvents([]);
  });

  it('is decided once: approved or declined, and then may be asked again', () => {
    givenRequest([requested])
      .when({ type: 'DecideErasure', clientId: 'f1', approve: true })
      .thenEvents([{ type: 'FamilyErasureRequestDecided', data: { clientId: 'f1', approved: true } }]);
    givenRequest([]).when({ type: 'DecideErasure', clientId: 'f1', approve: true }).thenRefused('conflict');
    const declined: FamilyErasureRequestEvent = {
      type: 'FamilyErasureRequestDecided',
      data: { clientId: 'f1', approved: false },
    };
    givenRequest([requested, declined])
      .when({ type: 'RequestErasure', ...who })
      .thenEvents([requested]);
  });
});
