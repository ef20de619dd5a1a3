import type { ConsultationDetails, ConsultationEvent } from '@agency/contracts';
import { describe, expect, it } from 'vitest';
import { fold } from '../shared/decider';
import { specFor } from '../testing/given-when-then';
import type { Actor } from '../timesheet/timesheet';
import { type ConsultationCommand, consultationDecider, consultationLines, invoiceDiffers } from './consultation';

const given = specFor(consultationDecider);
const admin: Actor = { role: 'admin' };
const family = { childIds: new Set(['child-1', 'child-2']) };
const details: Omit<ConsultationDetails, 'invoiceId'> = {
  consultationId: 'c1',
  clientId: 'client-1',
  childId: 'child-1',
  date: '2026-03-05',
  amountPence: 17_500,
  assessment: null,
};
const record = (
  over: Partial<Extract<ConsultationCommand, { type: 'RecordConsultation' }>> = {},
): ConsultationCommand => ({
  type: 'RecordConsultation',
  consultation: details,
  invoiceId: 'inv-1',
  family,
  assessorKnown: true,
  actor: admin,
  ...over,
});
const change = (
  consultation: typeof details,
  over: { family?: typeof family | null; actor?: Actor } = {},
): ConsultationCommand => ({
  type: 'ChangeConsultation',
  consultation,
  invoiceId: 'inv-2',
  family: over.family === undefined ? family : over.family,
  assessorKnown: true,
  actor: over.actor ?? admin,
});
const recorded: ConsultationEvent = { type: 'ConsultationRecorded', data: { ...details, invoiceId: 'inv-1' } };

describe('recording a consultation', () => {
  it('records it with the invoice that bills it', () => {
    given([]).when(record()).thenEvents([recorded]);
  });

  it('keeps an assessment’s subjects and tutor', () => {
    const assessment = { subjects: ['Maths', 'English'], tutorId: 't1' };
    given([])
      .when(record({ consultation: { ...details, assessment } }))
      .thenEvents([{ type: 'ConsultationRecorded', data: { ...details, assessment, invoiceId: 'inv-1' } }]);
  });

  it('is for admins only', () => {
    given([])
      .when(record({ actor: { role: 'partner', tutorId: 't1' } }))
      .thenRefused('forbidden');
    given([])
      .when(record({ actor: { role: 'tutor', tutorId: 't1' } }))
      .thenRefused('forbidden');
  });

  it('refuses a child of another family', () => {
    given([])
      .when(record({ consultation: { ...details, childId: 'someone-else' } }))
      .thenRefused('invalid', /not one of the chosen family/);
  });

  it('refuses a family that does not exist', () => {
    given([])
      .when(record({ family: null }))
      .thenRefused('invalid', /no such client/);
  });

  it('refuses amounts over £100,000 or below 0, and dates out of range', () => {
    given([])
      .when(record({ consultation: { ...details, amountPence: 10_000_001 } }))
      .thenRefused('invalid');
    given([])
      .when(record({ consultation: { ...details, amountPence: -1 } }))
      .thenRefused('invalid');
    given([])
      .when(record({ consultation: { ...details, date: '2101-01-01' } }))
      .thenRefused('invalid');
  });

  it('refuses an assessor who is not a tutor', () => {
    given([])
      .when(
        record({ consultation: { ...details, assessment: { subjects: [], tutorId: 'nobody' } }, assessorKnown: false }),
      )
      .thenRefused('invalid', /no such tutor/);
  });

  it('refuses subjects not on the list', () => {
    given([])
      .when(record({ consultation: { ...details, assessment: { subjects: ['Astrology'], tutorId: null } } }))
      .thenRefused('invalid', /subjects from the list/);
  });

  it('refuses to record the same consultation twice', () => {
    given([recorded]).when(record()).thenRefused('conflict');
  });
});

describe('changing a consultation', () => {
  it('keeps the invoice when what it says is unchanged (another child of the family)', () => {
    given([recorded])
      .when(change({ ...details, childId: 'child-2' }))
      .thenEvents([{ type: 'ConsultationChanged', data: { ...details, childId: 'child-2', invoiceId: 'inv-1' } }]);
  });

  it('names a new invoice when the amount, date, assessment or family changes', () => {
    for (const altered of [
      { ...details, amountPence: 20_000 },
      { ...details, date: '2026-03-06' },
      { ...details, assessment: { subjects: [], tutorId: null } },
    ]) {
      given([recorded])
        .when(change(altered))
        .thenEvents([{ type: 'ConsultationChanged', data: { ...altered, invoiceId: 'inv-2' } }]);
    }
    expect(invoiceDiffers(details, { ...details, clientId: 'client-2' })).toBe(true);
  });

  it('changes nothing when nothing changed', () => {
    given([recorded]).when(change(details)).thenEvents([]);
  });

  it('refuses an unknown or a cancelled consultation', () => {
    given([]).when(change(details)).thenRefused('not_found');
    given([recorded, { type: 'ConsultationCancelled', data: { consultationId: 'c1' } }])
      .when(change(details))
      .thenRefused('conflict', /cancelled/);
  });

  it('applies the same checks as recording', () => {
    given([recorded])
      .when(change({ ...details, childId: 'nope' }))
      .thenRefused('invalid');
    given([recorded])
      .when(change(details, { actor: { role: 'tutor', tutorId: 't1' } }))
      .thenRefused('forbidden');
  });
});

describe('cancelling a consultation', () => {
  const cancel: ConsultationCommand = { type: 'CancelConsultation', actor: admin };
  it('cancels it once', () => {
    given([recorded])
      .when(cancel)
      .thenEvents([{ type: 'ConsultationCancelled', data: { consultationId: 'c1' } }]);
    given([recorded, { type: 'ConsultationCancelled', data: { consultationId: 'c1' } }])
      .when(cancel)
      .thenEvents([]);
  });
  it('refuses an unknown consultation and anyone but an admin', () => {
    given([]).when(cancel).thenRefused('not_found');
    given([recorded])
      .when({ type: 'CancelConsultation', actor: { role: 'partner' } })
      .thenRefused('forbidden');
  });
});

it('describes the invoice line with the date, and the assessment when there was one', () => {
  expect(consultationLines(details)).toEqual([{ description: 'Consultation on 05 Mar 2026', amountPence: 17_500 }]);
  expect(consultationLines({ ...details, assessment: { subjects: [], tutorId: null } })[0]?.description).toBe(
    'Consultation with assessment on 05 Mar 2026',
  );
});

it('remembers every invoice that billed it, the current one last', () => {
  const changed: ConsultationEvent = {
    type: 'ConsultationChanged',
    data: { ...details, amountPence: 20_000, invoiceId: 'inv-2' },
  };
  const state = fold(consultationDecider, [recorded, changed]);
  expect(state.status === 'recorded' && state.invoiceIds).toEqual(['inv-1', 'inv-2']);
});
