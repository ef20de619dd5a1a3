import { ERASED, type PayStatementLine } from '@agency/contracts';
import { pdfText } from '@agency/scripts/testing/pdf-text';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RecordedEvent } from '../event-store/port';
import * as issued from './issued-documents';

/** The `n`th event of a log, as the store would hand it out. */
const nth = (n: number, streamId: string, type: string, data: Record<string, unknown>) =>
  ({
    id: `event-${n}`,
    streamId,
    type,
    revision: 0,
    data,
    position: { commit: BigInt(n), prepare: 0n },
  }) as unknown as RecordedEvent;

const child = (firstName: string) => ({ id: 'kid-1', firstName, lastName: 'Jones', dob: '2014-01-01' });
const line: PayStatementLine = {
  kind: 'lesson',
  lessonId: 'l-1',
  lessonMonth: '2026-03',
  engagementId: 'e-1',
  studentId: 'kid-1',
  clientId: 'fam-1',
  date: '2026-03-03',
  duration: 125,
  amountPence: 4166,
  sharePence: 729,
  payPence: 3437,
  paidBeforePence: 0,
  linePence: 3437,
  removed: false,
};
const tutorContact = {
  id: 'tc-1',
  firstName: 'Ada',
  lastName: 'Payee',
  address: ['1 High Street'],
  postcode: 'OX1 1AA',
  email: 'ada@example.com',
};

/** A statement, and the child renamed and a confirmation recorded after it. */
function log() {
  const events = [
    nth(1, 'tutor-t-1', 'TutorRegistered', { tutorId: 't-1', contact: tutorContact, username: 'ada' }),
    nth(2, 'client-fam-1', 'ChildAdded', { clientId: 'fam-1', child: child('Amy') }),
  ];
  const issue = nth(3, 'pay-statement-t-1-2026-03', 'PayStatementIssued', {
    statementId: 't-1-2026-03',
    tutorId: 't-1',
    month: '2026-03',
    reference: 'PS-ADA-2026-03',
    date: '2026-04-01',
    lines: [line],
    carriedPence: 0,
    totalPayPence: 3437,
  });
  events.push(
    issue,
    nth(4, 'client-fam-1', 'ChildDetailsChanged', { clientId: 'fam-1', child: child('Amelia') }),
    nth(5, 'pay-statement-t-1-2026-03', 'PayStatementConfirmed', { statementId: 't-1-2026-03' }),
  );
  return { events, issue };
}

describe('a pay statement as an issued document', () => {
  afterEach(() => vi.useRealTimers());

  it('prints what was true when it was issued, the same bytes whenever it is rendered, and its hash', async () => {
    const { events, issue } = log();
    const document = (await issued.issuedDocumentOf(issue, issued.readFromMemory(events))) as issued.IssuedDocument;
    expect(document.kind).toBe('pay statement');
    vi.useFakeTimers({ now: new Date('2026-04-01T10:00:00Z') });
    const first = await issued.renderIssuedDocument(document);
    vi.setSystemTime(new Date('2031-12-31T23:00:00Z'));
    const again = await issued.renderIssuedDocument(document);
    expect(again.equals(first)).toBe(true);
    const text = await pdfText(first);
    expect(text).toContain('PS-ADA-2026-03');
    expect(text).toContain('Amy Jones');
    expect(text).not.toContain('Amelia');
    expect(text).toContain('£34.37');
    expect(text).toContain(`Document check: ${issued.contentHashOfDocument(document)}`);
    expect(text).not.toMatch(/Confirmed/);
  });

  it('has another hash when a line differs, and names the child "Erased" once the family is', async () => {
    const { events, issue } = log();
    const document = (await issued.issuedDocumentOf(issue, issued.readFromMemory(events))) as issued.IssuedDocument;
    const changed = structuredClone(issue);
    (changed.data.lines as PayStatementLine[])[0]!.sharePence = 730;
    const other = (await issued.issuedDocumentOf(changed, issued.readFromMemory(events))) as issued.IssuedDocument;
    expect(issued.contentHashOfDocument(other)).not.toBe(issued.contentHashOfDocument(document));
    const erased = (await issued.issuedDocumentOf(
      issue,
      issued.readErased(issued.readFromMemory(events)),
    )) as issued.IssuedDocument;
    expect(erased.kind === 'pay statement' && erased.data.children).toEqual({ 'kid-1': `${ERASED} ${ERASED}` });
    expect(issued.contentHashOfDocument(erased)).not.toBe(issued.contentHashOfDocument(document));
  });
});
