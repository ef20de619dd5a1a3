import {
  type AssessmentDetails,
  type ConsultationDetails,
  type ConsultationEvent,
  type FamilyInvoiceLine,
  subjectOptions,
} from '@agency/contracts';
import { displayDate } from '../shared/calendar';
import { type Decider, DomainError } from '../shared/decider';
import { checkDate, checkId, checkList, checkPence } from '../shared/limits';
import type { Actor } from '../timesheet/timesheet';

/**
 * One consultation, stream `consultation-{id}`: recorded by an admin for a child of a family,
 * billed at once on a family invoice (`invoiceId`). A change that alters what the invoice says
 * names a new invoice (the service credits the old one and issues the new); a change that does not
 * keeps the invoice. A cancelled consultation stays cancelled.
 */
export type ConsultationState =
  | { status: 'none' }
  /** `invoiceIds`: every invoice that ever billed it, the current one last. */
  | { status: 'recorded'; consultation: ConsultationDetails; invoiceIds: readonly string[] }
  | { status: 'cancelled'; consultation: ConsultationDetails; invoiceIds: readonly string[] };

/** The family as its own stream tells it: whether it exists, and its children. */
export type Family = { childIds: ReadonlySet<string> } | null;

/** Whether the tutor named as the assessor exists (by their own stream); true when none is named. */
type Checks = { family: Family; assessorKnown: boolean };

type Details = Omit<ConsultationDetails, 'invoiceId'>;

export type ConsultationCommand =
  | ({ type: 'RecordConsultation'; consultation: Details; invoiceId: string; actor: Actor } & Checks)
  /** `invoiceId`: the id a new invoice gets if the change alters what the current one says. */
  | ({ type: 'ChangeConsultation'; consultation: Details; invoiceId: string; actor: Actor } & Checks)
  | { type: 'CancelConsultation'; actor: Actor };

export const initialState = (): ConsultationState => ({ status: 'none' });

export function evolve(state: ConsultationState, event: ConsultationEvent): ConsultationState {
  switch (event.type) {
    case 'ConsultationRecorded':
    case 'ConsultationChanged': {
      const earlier = state.status === 'none' ? [] : state.invoiceIds.filter((id) => id !== event.data.invoiceId);
      return { status: 'recorded', consultation: event.data, invoiceIds: [...earlier, event.data.invoiceId] };
    }
    case 'ConsultationCancelled':
      return state.status === 'none' ? state : { ...state, status: 'cancelled' };
    default:
      return state;
  }
}

/** The invoice's line for a consultation: what it was and when. */
export function consultationLines(
  consultation: Pick<Details, 'date' | 'amountPence' | 'assessment'>,
): FamilyInvoiceLine[] {
  const what = consultation.assessment ? 'Consultation with assessment' : 'Consultation';
  return [{ description: `${what} on ${displayDate(consultation.date)}`, amountPence: consultation.amountPence }];
}

/** Whether the family invoice of `before` no longer says what `after` needs (another family, line or total). */
export const invoiceDiffers = (before: Details, after: Details) =>
  before.clientId !== after.clientId ||
  JSON.stringify(consultationLines(before)) !== JSON.stringify(consultationLines(after));

function checkAssessment(assessment: AssessmentDetails | null) {
  if (assessment === null) return;
  const known = new Set<string>(subjectOptions);
  checkList(assessment.subjects, subjectOptions.length, 'assessmentDetails.subjects', 'Subjects', (subject) => {
    if (typeof subject !== 'string' || !known.has(subject)) {
      throw new DomainError('invalid', 'Choose subjects from the list.', {
        'assessmentDetails.subjects': 'Choose subjects from the list',
      });
    }
  });
  if (assessment.tutorId !== null) checkId(assessment.tutorId, 'assessmentDetails.tutorId', 'The tutor');
}

function checkDetails(consultation: Details, { family, assessorKnown }: Checks, actor: Actor) {
  if (actor.role !== 'admin') throw new DomainError('forbidden', 'Only an admin can record consultations.');
  checkId(consultation.consultationId, 'id', 'The consultation id');
  checkDate(consultation.date, 'date');
  checkPence(consultation.amountPence, { field: 'amount', label: 'Amount' });
  checkAssessment(consultation.assessment);
  if (!assessorKnown) {
    throw new DomainError('invalid', 'There is no such tutor.', {
      'assessmentDetails.tutorId': 'There is no such tutor',
    });
  }
  if (family === null) {
    throw new DomainError('invalid', 'There is no such client.', { client: 'There is no such client' });
  }
  if (!family.childIds.has(consultation.childId)) {
    throw new DomainError('invalid', 'This child is not one of the chosen family’s children.', {
      child: 'Choose one of this family’s children',
    });
  }
}

const same = (a: Details, b: Details) =>
  JSON.stringify({ ...a, invoiceId: undefined }) === JSON.stringify({ ...b, invoiceId: undefined });

export function decide(command: ConsultationCommand, state: ConsultationState, _now: Date): ConsultationEvent[] {
  switch (command.type) {
    case 'RecordConsultation': {
      const { consultation, invoiceId, actor } = command;
      checkDetails(consultation, command, actor);
      if (state.status !== 'none') throw new DomainError('conflict', 'This consultation has been recorded already.');
      return [{ type: 'ConsultationRecorded', data: { ...consultation, invoiceId } }];
    }
    case 'ChangeConsultation': {
      const { consultation, actor } = command;
      checkDetails(consultation, command, actor);
      if (state.status === 'none') throw new DomainError('not_found', 'There is no such consultation.');
      if (state.status === 'cancelled') {
        throw new DomainError('conflict', 'This consultation was cancelled, so it cannot be changed.');
      }
      const before = state.consultation;
      if (consultation.consultationId !== before.consultationId) {
        throw new DomainError('invalid', 'The consultation id cannot change.');
      }
      if (same(before, consultation)) return [];
      const invoiceId = invoiceDiffers(before, consultation) ? command.invoiceId : before.invoiceId;
      return [{ type: 'ConsultationChanged', data: { ...consultation, invoiceId } }];
    }
    case 'CancelConsultation': {
      if (command.actor.role !== 'admin') throw new DomainError('forbidden', 'Only an admin can cancel consultations.');
      if (state.status === 'none') throw new DomainError('not_found', 'There is no such consultation.');
      if (state.status === 'cancelled') return [];
      return [{ type: 'ConsultationCancelled', data: { consultationId: state.consultation.consultationId } }];
    }
    default: {
      const _never: never = command;
      return _never;
    }
  }
}

export const consultationDecider: Decider<ConsultationCommand, ConsultationEvent, ConsultationState> = {
  initialState,
  evolve,
  decide,
};

export const consultationStream = (consultationId: string) => `consultation-${consultationId}`;
