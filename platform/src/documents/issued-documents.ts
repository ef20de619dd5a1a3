import { createHash } from 'node:crypto';
import { type AgencyDetails, type ProductEvent, personalDataRules, seedAgencyDetails } from '@agency/contracts';
import { addDays, agency, client, familyInvoice, fold, tutor } from '@agency/domain';
import { comparePositions, type EventStore, type Position, type RecordedEvent } from '../event-store/port';
import { contentHashOf, type PrintedAgency, printedAgency } from './document-layout';
import { type FamilyDocumentData, familyDocumentContent, renderFamilyDocument } from './family-invoice-document';
import {
  type PayStatementDocumentData,
  payStatementDocumentContent,
  renderPayStatement,
} from './pay-statement-document';
import { type InvoiceDocumentData, invoiceDocumentContent, renderInvoiceDocument } from './tutor-invoice-document';

/**
 * The events that issue a document, each one document: a tutor's invoice (a generation: a
 * withdrawn one and the next are two documents), a family invoice, a credit note.
 */
export const ISSUING_EVENTS = [
  'InvoiceGenerated',
  'FamilyInvoiceIssued',
  'FamilyCreditNoteIssued',
  'PayStatementIssued',
] as const;
export const issuesDocument = (type: string): boolean => (ISSUING_EVENTS as readonly string[]).includes(type);

/** A document as it was issued: what its issuing event and the streams it reads said at that event's position. */
export type IssuedDocument = { eventId: string; reference: string; agency: PrintedAgency } & (
  | { kind: 'tutor invoice'; data: InvoiceDocumentData }
  | { kind: 'family invoice' | 'credit note'; data: FamilyDocumentData }
  | { kind: 'pay statement'; data: PayStatementDocumentData }
);

type Recorded = Pick<RecordedEvent, 'type' | 'data'>;
/** A stream's events recorded up to and including `upTo` (a position in `$all`), in order. */
export type ReadAsOf = (streamId: string, upTo: Position) => Promise<readonly Recorded[]>;

/** Reads from the event store (through the personal-data layer when the store is the protected one). */
export const readFromStore =
  (store: EventStore): ReadAsOf =>
  async (streamId, upTo) =>
    (await store.readStream(streamId)).filter((event) => comparePositions(event.position, upTo) <= 0);

/** Reads from events already in memory (`npm run verify` holds the whole log), by stream, in log order. */
export function readFromMemory(events: readonly RecordedEvent[]): ReadAsOf {
  const byStream = new Map<string, RecordedEvent[]>();
  for (const event of events) {
    const stream = byStream.get(event.streamId);
    if (stream) stream.push(event);
    else byStream.set(event.streamId, [event]);
  }
  return async (streamId, upTo) =>
    (byStream.get(streamId) ?? []).filter((event) => comparePositions(event.position, upTo) <= 0);
}

/**
 * The same reads with every personal field as its erased value, where the event holds it: what
 * the document will print once its subject is erased. Its content hash is kept beside the full
 * one when the document is recorded, so an erasure is told from a changed document.
 */
export function readErased(read: ReadAsOf): ReadAsOf {
  return async (streamId, upTo) =>
    (await read(streamId, upTo)).map((event) => {
      const rule = personalDataRules[event.type];
      if (!rule) return event;
      const data = structuredClone(event.data) as Record<string, unknown>;
      const subject = rule.subjectOf(data);
      for (const field of rule.fields) {
        const parent = field.path
          .slice(0, -1)
          .reduce<unknown>(
            (node, step) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[step] : undefined),
            data,
          );
        const last = field.path.at(-1);
        if (last && parent && typeof parent === 'object' && (parent as Record<string, unknown>)[last] !== undefined)
          (parent as Record<string, unknown>)[last] = field.erased(subject);
      }
      return { type: event.type, data };
    });
}

const asProduct = (events: readonly Recorded[]) => events.map((event) => ({ type: event.type, data: event.data }));

async function agencyAsOf(read: ReadAsOf, upTo: Position): Promise<AgencyDetails> {
  const events = await read(agency.agencyStream(), upTo);
  return events.length === 0
    ? seedAgencyDetails
    : agency.detailsOf(fold(agency.agencyDecider, asProduct(events) as never));
}

/** The tutor's contact as its latest registration or change of details before `upTo` gave it. */
async function tutorContactAsOf(read: ReadAsOf, tutorId: string, upTo: Position) {
  let contact: { firstName: string; lastName: string; address: string[]; postcode: string; email: string } | undefined;
  for (const event of asProduct(await read(tutor.tutorStream(tutorId), upTo)) as ProductEvent[]) {
    if (event.type === 'TutorRegistered' || event.type === 'TutorDetailsChanged') contact = event.data.contact;
  }
  return contact;
}

/** The children's names by id, as their families' streams said before `upTo` (a pay statement's lines). */
async function childNamesAsOf(read: ReadAsOf, families: readonly string[], upTo: Position) {
  const names: Record<string, string> = {};
  for (const clientId of [...new Set(families)].sort()) {
    for (const event of asProduct(await read(client.clientStream(clientId), upTo)) as ProductEvent[]) {
      if (event.type === 'ChildAdded' || event.type === 'ChildDetailsChanged') {
        names[event.data.child.id] = `${event.data.child.firstName} ${event.data.child.lastName}`;
      }
    }
  }
  return names;
}

/**
 * The document `event` issued, built from that event and the streams it reads as they stood at
 * its position: the agency's details in force then (the seed before any were set), the tutor's
 * contact then, the family invoice as issued. Nothing recorded later (a payment, a confirmation,
 * a credit note, new agency details) changes it. Undefined for an event that issues no document.
 */
export async function issuedDocumentOf(event: RecordedEvent, read: ReadAsOf): Promise<IssuedDocument | undefined> {
  const known = { type: event.type, data: event.data } as ProductEvent;
  const details = await agencyAsOf(read, event.position);
  const common = { eventId: event.id, agency: printedAgency(details) };
  if (known.type === 'InvoiceGenerated') {
    const { data } = known;
    const contact = await tutorContactAsOf(read, data.tutorId, event.position);
    return {
      ...common,
      kind: 'tutor invoice',
      reference: data.reference,
      data: {
        reference: data.reference,
        date: data.date,
        month: data.month,
        dueDate: addDays(data.date, details.paymentTermsDays),
        tutor: {
          name: contact ? `${contact.firstName} ${contact.lastName}` : '',
          address: contact?.address ?? [],
          postcode: contact?.postcode ?? '',
          email: contact?.email ?? '',
        },
        items: data.items,
        earningsPence: data.earningsPence,
        commissionPence: data.commissionPence,
      },
    };
  }
  if (known.type === 'PayStatementIssued') {
    const { data } = known;
    const contact = await tutorContactAsOf(read, data.tutorId, event.position);
    const families = data.lines.flatMap((line) => (line.clientId ? [line.clientId] : []));
    return {
      ...common,
      kind: 'pay statement',
      reference: data.reference,
      data: {
        reference: data.reference,
        date: data.date,
        month: data.month,
        tutor: {
          name: contact ? `${contact.firstName} ${contact.lastName}` : '',
          address: contact?.address ?? [],
          postcode: contact?.postcode ?? '',
          email: contact?.email ?? '',
        },
        lines: data.lines,
        children: await childNamesAsOf(read, families, event.position),
        carriedPence: data.carriedPence,
        totalPayPence: data.totalPayPence,
      },
    };
  }
  if (known.type !== 'FamilyInvoiceIssued' && known.type !== 'FamilyCreditNoteIssued') return undefined;
  const state = fold(
    familyInvoice.familyInvoiceDecider,
    asProduct(await read(event.streamId, event.position)) as never,
  );
  if (state.status !== 'issued') return undefined;
  const { invoice } = state;
  const billing = {
    name: invoice.billing.name,
    address: invoice.billing.address,
    postcode: invoice.billing.postcode,
    email: invoice.billing.email,
  };
  if (known.type === 'FamilyInvoiceIssued')
    return {
      ...common,
      kind: 'family invoice',
      reference: invoice.reference,
      data: {
        kind: 'invoice',
        reference: invoice.reference,
        date: invoice.date,
        dueDate: invoice.dueDate,
        billing,
        lines: invoice.lines,
        totalPence: invoice.totalPence,
        // A lessons invoice's lines name their children and tutors (kept under the billing's key).
        ...namesOf(invoice),
      },
    };
  const note = known.data;
  return {
    ...common,
    kind: 'credit note',
    reference: note.reference,
    data: {
      kind: 'credit note',
      reference: note.reference,
      date: note.date,
      dueDate: invoice.dueDate,
      creditedReference: invoice.reference,
      billing,
      lines: note.lines,
      totalPence: note.totalPence,
      ...namesOf(invoice),
    },
  };
}

/** The document's content hash, as it prints it, without rendering it. */
export const contentHashOfDocument = (document: IssuedDocument): string =>
  contentHashOf(
    document.kind === 'tutor invoice'
      ? invoiceDocumentContent(document.data, document.agency)
      : document.kind === 'pay statement'
        ? payStatementDocumentContent(document.data, document.agency)
        : familyDocumentContent(document.data, document.agency),
  );

/** The document's PDF: the same bytes for the same document, whenever and wherever it is rendered. */
export const renderIssuedDocument = (document: IssuedDocument): Promise<Buffer> =>
  document.kind === 'tutor invoice'
    ? renderInvoiceDocument(document.data, document.agency)
    : document.kind === 'pay statement'
      ? renderPayStatement(document.data, document.agency)
      : renderFamilyDocument(document.data, document.agency);

/**
 * The document issued by the event of `streamId` that `issuedBy` picks (the latest such), read
 * from the store: what the PDF routes serve. Undefined when no event of the stream picks.
 */
export async function issuedDocumentIn(
  store: EventStore,
  streamId: string,
  issuedBy: (event: Recorded) => boolean,
): Promise<IssuedDocument | undefined> {
  const event = (await store.readStream(streamId))
    .filter((recorded) => issuesDocument(recorded.type) && issuedBy(recorded))
    .at(-1);
  return event && issuedDocumentOf(event, readFromStore(store));
}

/** What is kept of a document when it is first rendered, and compared by `npm run verify` (docs/documents.md). */
export type DocumentRecord = {
  eventId: string;
  streamId: string;
  kind: IssuedDocument['kind'];
  reference: string;
  /** The hash the document prints. */
  contentHash: string;
  /** The hash it prints once the subject of its personal fields is erased. */
  erasedContentHash: string;
  /** SHA-256 of the PDF's bytes, in hex. */
  pdfSha256: string;
};

/** The record of the document `event` issued, rendering it; undefined for an event that issues none. */
export async function documentRecordOf(event: RecordedEvent, read: ReadAsOf): Promise<DocumentRecord | undefined> {
  const document = await issuedDocumentOf(event, read);
  const erased = await issuedDocumentOf(event, readErased(read));
  if (!document || !erased) return undefined;
  const pdf = await renderIssuedDocument(document);
  return {
    eventId: event.id,
    streamId: event.streamId,
    kind: document.kind,
    reference: document.reference,
    contentHash: contentHashOfDocument(document),
    erasedContentHash: contentHashOfDocument(erased),
    pdfSha256: createHash('sha256').update(pdf).digest('hex'),
  };
}

/** A lessons invoice's children and tutors by id, as its lines print them (none on other invoices). */
const namesOf = (invoice: { names?: { id: string; name: string }[] }) =>
  invoice.names ? { names: Object.fromEntries(invoice.names.map(({ id, name }) => [id, name])) } : {};
