import {
  type AgencyDetails,
  type AgencyEvent,
  isSingleEmailAddress,
  LIMITS,
  seedAgencyDetails,
} from '@agency/contracts';
import { type Decider, DomainError } from '../shared/decider';
import { checkList, checkPence, checkText } from '../shared/limits';
import type { Actor } from '../timesheet/timesheet';

/**
 * The agency's own details, stream `agency-details`: seeded once on the first start with the
 * values the product shipped with, then set as a whole by an admin on the settings screen.
 */
export type AgencyState = { status: 'none' } | { status: 'set'; details: AgencyDetails };

export type AgencyCommand =
  | { type: 'SeedAgencyDetails' }
  | { type: 'SetAgencyDetails'; details: AgencyDetails; actor: Actor };

export const initialState = (): AgencyState => ({ status: 'none' });

export function evolve(state: AgencyState, event: AgencyEvent): AgencyState {
  switch (event.type) {
    case 'AgencyDetailsSet':
      return { status: 'set', details: event.data.details };
    default:
      return state;
  }
}

/** The details in force: the seed until the first start recorded it. */
export const detailsOf = (state: AgencyState): AgencyDetails =>
  state.status === 'set' ? state.details : seedAgencyDetails;

const refuse = (field: string, message: string): never => {
  throw new DomainError('invalid', `${message}.`, { [field]: message });
};

/** The bounds of the settings form again, so a stored event always fits the documents and the read model. */
export function checkAgencyDetails(details: AgencyDetails) {
  const required = (field: keyof AgencyDetails, label: string, max?: number) =>
    checkText(details[field], { field, label, required: true, max });
  required('name', 'Name');
  checkList(details.address, LIMITS.maxAddressLines, 'address', 'Address lines', (line) =>
    checkText(line, { field: 'address', label: 'An address line' }),
  );
  required('postcode', 'Postcode');
  required('email', 'Email', LIMITS.maxEmailLength);
  if (!isSingleEmailAddress(details.email)) refuse('email', 'Enter one email address (like name@example.com)');
  required('phone', 'Phone', LIMITS.maxPhoneNumberLength);
  required('bankName', 'Bank name');
  required('accountName', 'Account name');
  if (!/^\d{2}-?\d{2}-?\d{2}$/.test(details.sortCode)) refuse('sortCode', 'Use a sort code like 12-34-56');
  if (!/^\d{8}$/.test(details.accountNumber)) refuse('accountNumber', 'An account number is 8 digits');
  checkText(details.bankNoticeText, { field: 'bankNoticeText', label: 'The notice', max: LIMITS.maxNoticeLength });
  required('familyInvoicePrefix', 'Invoice prefix', LIMITS.maxInvoicePrefixLength);
  if (!/^[A-Za-z0-9]+$/.test(details.familyInvoicePrefix)) refuse('familyInvoicePrefix', 'Use letters and digits only');
  const days = details.paymentTermsDays;
  if (!Number.isInteger(days) || days < 0 || days > LIMITS.maxPaymentTermsDays) {
    refuse('paymentTermsDays', `Payment terms are 0 to ${LIMITS.maxPaymentTermsDays} days`);
  }
  checkPence(details.defaultConsultationPence, {
    field: 'defaultConsultationAmount',
    label: 'Default consultation amount',
  });
}

const same = (a: AgencyDetails, b: AgencyDetails) => JSON.stringify(a) === JSON.stringify(b);

export function decide(command: AgencyCommand, state: AgencyState, _now: Date): AgencyEvent[] {
  switch (command.type) {
    case 'SeedAgencyDetails':
      // Every start asks; only the first one of an empty store records the seed.
      return state.status === 'none' ? [{ type: 'AgencyDetailsSet', data: { details: seedAgencyDetails } }] : [];
    case 'SetAgencyDetails': {
      if (command.actor.role !== 'admin') {
        throw new DomainError('forbidden', "Only an admin can change the agency's details.");
      }
      checkAgencyDetails(command.details);
      if (state.status === 'set' && same(state.details, command.details)) return [];
      return [{ type: 'AgencyDetailsSet', data: { details: command.details } }];
    }
    default: {
      const _never: never = command;
      return _never;
    }
  }
}

export const agencyDecider: Decider<AgencyCommand, AgencyEvent, AgencyState> = { initialState, evolve, decide };

export const agencyStream = () => 'agency-details';
