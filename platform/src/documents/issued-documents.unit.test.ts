import { createHash, randomUUID } from 'node:crypto';
import { ERASED, seedAgencyDetails } from '@agency/contracts';
import { pdfText } from '@agency/scripts/testing/pdf-text';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RecordedEvent } from '../event-store/port';
import {
  contentHashOfDocument,
  type IssuedDocument,
  issuedDocumentOf,
  readErased,
  readFromMemory,
  renderIssuedDocument,
} from './issued-documents';

let commit = 0n;
/** An event as the store records it, at the next position of the log. */
function recorded(streamId: string, type: string, data: Record<string, unknown>): RecordedEvent {
  commit += 1n;
  return {
    id: randomUUID(),
    streamId,
    type,
    revision: 0,
    position: { commit, prepare: commit },
    data,
    metadata: { recordedAt: '2025-07-01T09:00:00.000Z' },
  } as unknown as RecordedEvent;
}

const billing = {
  name: 'Martha Jones',
  address: ['1 High Street', 'Oxford'],
  postcode: 'OX1 1AA',
  email: 'm@example.com',
};
const issuedInvoice = {
  invoiceId: 'inv-1',
  reference: 'FAM00042',
  date: '2025-07-01',
  dueDate: '2025-07-15',
  clientId: 'client-1',
  billedFor: { kind: 'consultation', id: 'c-1' },
  billing,
  lines: [{ description: 'Consultation on 30 June 2025', amountPence: 17_500 }],
  totalPence: 17_500,
};
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** The family invoice and what was recorded around it: agency details before and after, a payment, a credit note. */
function familyLog() {
  const stream = 'family-invoice-inv-1';
  const details = recorded('agency-details', 'AgencyDetailsSet', { details: seedAgencyDetails });
  const issue = recorded(stream, 'FamilyInvoiceIssued', issuedInvoice);
  const moved = recorded('agency-details', 'AgencyDetailsSet', {
    details: { ...seedAgencyDetails, address: ['2 New Road', 'Abingdon'], accountNumber: '99999999' },
  });
  const paid = recorded(stream, 'FamilyInvoicePaymentRecorded', {
    invoiceId: 'inv-1',
    paymentId: 'p-1',
    date: '2025-07-10',
    amountPence: 5_000,
  });
  const credit = recorded(stream, 'FamilyCreditNoteIssued', {
    invoiceId: 'inv-1',
    creditNoteId: 'cn-1',
    reference: 'CN-FAM00043',
    date: '2025-07-20',
    reason: 'cancelled',
    lines: issuedInvoice.lines,
    totalPence: 17_500,
  });
  return { events: [details, issue, moved, paid, credit], issue, credit };
}

async function issuedInvoiceDocument(): Promise<IssuedDocument> {
  const { events, issue } = familyLog();
  const document = await issuedDocumentOf(issue, readFromMemory(events));
  if (!document) throw new Error('no document');
  return document;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('an issued document', () => {
  it('renders to the same bytes at any time: dated by its issue, its file ID from its content', async () => {
    const document = await issuedInvoiceDocument();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-01-05T10:00:00Z'));
    const first = await renderIssuedDocument(document);
    vi.setSystemTime(new Date('2031-11-27T23:59:59Z'));
    const second = await renderIssuedDocument(document);
    expect(sha256(second)).toBe(sha256(first));
    const raw = first.toString('latin1');
    // The info dictionary's dates are objects of their own: both the issue day, none the clock's.
    expect(raw).toMatch(/\/CreationDate \d+ 0 R/);
    expect(raw).toMatch(/\/ModDate \d+ 0 R/);
    expect(raw.match(/\(D:\d{14}Z\)/g)).toEqual(['(D:20250701000000Z)', '(D:20250701000000Z)']);
  });

  it('prints its content hash, and any change to what it prints changes the hash, the file ID and the bytes', async () => {
    const document = await issuedInvoiceDocument();
    const hash = contentHashOfDocument(document);
    expect(hash).toMatch(/^[0-9a-f]{12}$/);
    const pdf = await renderIssuedDocument(document);
    expect(pdfText(pdf)).toContain(`Document check: ${hash}`);
    const fileId = (bytes: Buffer) => /\/ID \[<([0-9a-f]+)>/.exec(bytes.toString('latin1'))?.[1];

    const changes: IssuedDocument[] = [
      { ...document, data: { ...document.data, lines: [{ description: 'Consultation', amountPence: 17_501 }] } },
      { ...document, agency: { ...document.agency, sortCode: '00-00-01' } },
      { ...document, data: { ...document.data, billing: { ...billing, postcode: 'OX1 1AB' } } },
    ] as IssuedDocument[];
    for (const changed of changes) {
      const other = await renderIssuedDocument(changed);
      expect(contentHashOfDocument(changed)).not.toBe(hash);
      expect(pdfText(other)).toContain(`Document check: ${contentHashOfDocument(changed)}`);
      expect(fileId(other)).not.toBe(fileId(pdf));
      expect(sha256(other)).not.toBe(sha256(pdf));
    }
  });

  it('is built as it stood at its event: later agency details, payments and a credit note leave it as it was', async () => {
    const { events, issue, credit } = familyLog();
    const atIssue = await issuedDocumentOf(issue, readFromMemory(events.slice(0, 2)));
    const later = await issuedDocumentOf(issue, readFromMemory(events));
    expect(later).toEqual(atIssue);
    const text = pdfText(await renderIssuedDocument(later!));
    expect(text).toContain(seedAgencyDetails.address[0]);
    expect(text).not.toContain('2 New Road');
    expect(text).not.toMatch(/Paid|Balance due|cancelled by credit note/);

    // The credit note, issued after the move, prints the agency's new address and its own reference.
    const note = await issuedDocumentOf(credit, readFromMemory(events));
    expect(note).toMatchObject({ kind: 'credit note', reference: 'CN-FAM00043' });
    const noteText = pdfText(await renderIssuedDocument(note!));
    expect(noteText).toContain('2 New Road');
    expect(noteText).toContain('FAM00042');
  });

  it("reads as its erased form once its subject is erased: personal fields 'Erased', everything else as issued", async () => {
    const { events, issue } = familyLog();
    const full = await issuedDocumentOf(issue, readFromMemory(events));
    const erased = await issuedDocumentOf(issue, readErased(readFromMemory(events)));
    expect(erased?.data).toEqual({
      ...full?.data,
      billing: { name: ERASED, address: [ERASED], postcode: ERASED, email: ERASED },
    });
    expect(erased?.agency).toEqual(full?.agency);
    expect(contentHashOfDocument(erased!)).not.toBe(contentHashOfDocument(full!));
    const text = pdfText(await renderIssuedDocument(erased!));
    expect(text).not.toContain('Martha');
    expect(text).toContain('£175.00');
  });

  it("prints a tutor's invoice with the tutor's contact and the agency's payment terms as they were when it was generated", async () => {
    const contact = (firstName: string) => ({
      id: 'contact-1',
      firstName,
      lastName: 'Lovelace',
      address: ['3 Park Road'],
      postcode: 'OX2 2BB',
      email: 'ada@example.com',
      phone: [],
      dob: null,
    });
    const registered = recorded('tutor-t-1', 'TutorRegistered', { tutorId: 't-1', contact: contact('Ada') });
    const details = recorded('agency-details', 'AgencyDetailsSet', {
      details: { ...seedAgencyDetails, paymentTermsDays: 14 },
    });
    const generated = recorded('invoice-t-1-2025-06', 'InvoiceGenerated', {
      invoiceId: 't-1_2025-06',
      tutorId: 't-1',
      month: '2025-06',
      reference: 'AL0001',
      date: '2025-07-01',
      items: [{ commissionBp: 2500, earningsPence: 43_500, commissionPence: 10_876 }],
      lessonCount: 3,
      earningsPence: 43_500,
      commissionPence: 10_876,
      partnerCommissionPence: 0,
    });
    const renamed = recorded('tutor-t-1', 'TutorDetailsChanged', { tutorId: 't-1', contact: contact('Augusta') });
    const confirmed = recorded('invoice-t-1-2025-06', 'InvoiceConfirmed', {
      invoiceId: 't-1_2025-06',
      tutorId: 't-1',
      month: '2025-06',
    });
    const document = await issuedDocumentOf(
      generated,
      readFromMemory([registered, details, generated, renamed, confirmed]),
    );
    expect(document).toMatchObject({
      kind: 'tutor invoice',
      reference: 'AL0001',
      data: { dueDate: '2025-07-15', tutor: { name: 'Ada Lovelace', postcode: 'OX2 2BB' } },
    });
    const text = pdfText(await renderIssuedDocument(document!));
    expect(text).toContain('Ada Lovelace');
    expect(text).not.toContain('Augusta');
    expect(text).not.toMatch(/confirmed/);
    expect(text).toContain(`Document check: ${contentHashOfDocument(document!)}`);
  });
});
