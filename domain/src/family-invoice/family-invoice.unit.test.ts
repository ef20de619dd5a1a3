import type { ClientEvent, FamilyInvoiceEvent } from '@agency/contracts';
import { describe, expect, it } from 'vitest';
import { fold } from '../shared/decider';
import { specFor } from '../testing/given-when-then';
import type { Actor } from '../timesheet/timesheet';
import {
  creditNoteReference,
  type FamilyInvoiceCommand,
  familyBillingView,
  familyInvoiceDecider,
  familyInvoiceReference,
  sequenceDecider,
} from './family-invoice';

const given = specFor(familyInvoiceDecider);
const admin: Actor = { role: 'admin' };
const billing = { name: 'Ann Smith', address: ['1 High St', 'Oxford'], postcode: 'OX1 1AA', email: 'ann@example.com' };
const invoice = {
  invoiceId: 'inv-1',
  reference: 'OTA00001',
  date: '2026-03-05',
  dueDate: '2026-03-19',
  clientId: 'client-1',
  billedFor: { kind: 'consultation' as const, id: 'c1' },
  billing,
  lines: [{ description: 'Consultation on 05 Mar 2026', amountPence: 17_500 }],
};
const issued: FamilyInvoiceEvent = { type: 'FamilyInvoiceIssued', data: { ...invoice, totalPence: 17_500 } };
const pay = (amountPence: number, actor: Actor = admin): FamilyInvoiceCommand => ({
  type: 'RecordFamilyPayment',
  paymentId: 'p1',
  date: '2026-03-10',
  amountPence,
  actor,
});
const paid = (amountPence: number): FamilyInvoiceEvent => ({
  type: 'FamilyInvoicePaymentRecorded',
  data: { invoiceId: 'inv-1', paymentId: 'p1', date: '2026-03-10', amountPence },
});
const credit: FamilyInvoiceCommand = {
  type: 'IssueCreditNote',
  creditNoteId: 'cn-1',
  reference: 'CN-OTA00002',
  date: '2026-03-12',
  reason: 'changed',
};
const credited: FamilyInvoiceEvent = {
  type: 'FamilyCreditNoteIssued',
  data: {
    invoiceId: 'inv-1',
    creditNoteId: 'cn-1',
    reference: 'CN-OTA00002',
    date: '2026-03-12',
    reason: 'changed',
    lines: invoice.lines,
    totalPence: 17_500,
  },
};

describe('issuing a family invoice', () => {
  it('issues it with its total, once', () => {
    given([]).when({ type: 'IssueFamilyInvoice', invoice }).thenEvents([issued]);
    given([issued]).when({ type: 'IssueFamilyInvoice', invoice }).thenEvents([]);
  });
  it('refuses an invoice without lines, a line over £100,000, or payment due before the date', () => {
    given([])
      .when({ type: 'IssueFamilyInvoice', invoice: { ...invoice, lines: [] } })
      .thenRefused('invalid');
    given([])
      .when({
        type: 'IssueFamilyInvoice',
        invoice: { ...invoice, lines: [{ description: 'x', amountPence: 10_000_001 }] },
      })
      .thenRefused('invalid');
    given([])
      .when({ type: 'IssueFamilyInvoice', invoice: { ...invoice, dueDate: '2026-03-01' } })
      .thenRefused('invalid');
  });
});

describe('payments', () => {
  it('records part payments up to what is owed', () => {
    given([issued])
      .when(pay(5_000))
      .thenEvents([paid(5_000)]);
    given([issued, paid(5_000)])
      .when(pay(12_500))
      .thenEvents([paid(12_500)]);
  });
  it('refuses more than is owed', () => {
    given([issued, paid(5_000)])
      .when(pay(12_501))
      .thenRefused('conflict', /Only £125.00 is left/);
  });
  it('refuses a payment on a credited invoice, an unknown one, nothing, and anyone but an admin', () => {
    given([issued, credited])
      .when(pay(100))
      .thenRefused('conflict', /credited/);
    given([]).when(pay(100)).thenRefused('not_found');
    given([issued]).when(pay(0)).thenRefused('invalid');
    given([issued])
      .when(pay(100, { role: 'partner' }))
      .thenRefused('forbidden');
  });
});

describe('credit notes', () => {
  it('credit the whole invoice once, with their own reference', () => {
    given([issued]).when(credit).thenEvents([credited]);
    given([issued, credited]).when(credit).thenEvents([]);
  });
  it('need an issued invoice', () => {
    given([]).when(credit).thenRefused('not_found');
  });
});

describe('the reference sequence', () => {
  const seq = specFor(sequenceDecider);
  const taken = (number: number, documentId: string): FamilyInvoiceEvent => ({
    type: 'FamilyInvoiceNumberTaken',
    data: { number, documentId },
  });
  it('hands out the next number, and the same one again to the same document', () => {
    seq([])
      .when({ type: 'TakeNumber', documentId: 'a' })
      .thenEvents([taken(1, 'a')]);
    seq([taken(1, 'a')])
      .when({ type: 'TakeNumber', documentId: 'b' })
      .thenEvents([taken(2, 'b')]);
    seq([taken(1, 'a'), taken(2, 'b')])
      .when({ type: 'TakeNumber', documentId: 'a' })
      .thenEvents([]);
  });
  it('formats invoice and credit note references', () => {
    expect(familyInvoiceReference('OTA', 12)).toBe('OTA00012');
    expect(creditNoteReference('OTA', 13)).toBe('CN-OTA00013');
  });
});

it('bills the family’s first contact, as last changed', () => {
  const contact = {
    id: 'k1',
    firstName: 'Ann',
    lastName: 'Smith',
    address: ['1 High St'],
    postcode: 'OX1 1AA',
    email: 'ann@example.com',
    phone: [],
    dob: null,
  };
  const events: ClientEvent[] = [
    { type: 'ClientRegistered', data: { clientId: 'client-1', startDate: '2026-01-01', contact } },
    { type: 'ContactAdded', data: { clientId: 'client-1', contact: { ...contact, id: 'k2', firstName: 'Bob' } } },
    {
      type: 'ContactDetailsChanged',
      data: { clientId: 'client-1', contact: { ...contact, email: 'new@example.com' } },
    },
  ];
  expect(fold(familyBillingView, events)?.billing).toEqual({
    name: 'Ann Smith',
    address: ['1 High St'],
    postcode: 'OX1 1AA',
    email: 'new@example.com',
  });
  expect(fold(familyBillingView, [])).toBeNull();
});
