import { createHash } from 'node:crypto';
import { personalDataRules } from '@agency/contracts';
import type { RecordedEvent } from '@agency/platform';
import {
  contentHashOfDocument,
  type IssuedDocument,
  issuedDocumentOf,
  issuesDocument,
  type ReadAsOf,
  readErased,
  readFromMemory,
  renderIssuedDocument,
} from '@agency/platform/documents/issued-documents';
import type pg from 'pg';

export type DocumentsChecked = {
  /** Documents rebuilt and compared with their record's content hash. */
  compared: number;
  /** Of those, documents also rendered to bytes and compared with their record's SHA-256. */
  rendered: number;
  /** Of those, documents with a subject erased since: their erased form compared with the one recorded. */
  erased: number;
  /** Documents with no record (issued before records were kept, or not recorded yet): built, not compared. */
  unrecorded: number;
};

type RecordRow = { event_id: string; content_hash: string; erased_content_hash: string; pdf_sha256: string };

const NAMES: Record<IssuedDocument['kind'], string> = {
  'tutor invoice': 'Invoice',
  'family invoice': 'Family invoice',
  'credit note': 'Credit note',
  'pay statement': 'Pay statement',
};

async function recordsOf(pool: pg.Pool): Promise<Map<string, RecordRow>> {
  const exists = await pool.query("select to_regclass('command.issued_documents') as found");
  if (!exists.rows[0]?.found) return new Map();
  const found = await pool.query<RecordRow>(
    'select event_id, content_hash, erased_content_hash, pdf_sha256 from command.issued_documents',
  );
  return new Map(found.rows.map((row) => [row.event_id, row]));
}

/** The data subjects whose personal fields the document `event` issued reads. */
async function subjectsRead(event: RecordedEvent, read: ReadAsOf): Promise<Set<string>> {
  const subjects = new Set<string>();
  await issuedDocumentOf(event, async (streamId, upTo) => {
    const events = await read(streamId, upTo);
    for (const { type, data } of events) {
      const rule = personalDataRules[type];
      if (rule) subjects.add(rule.subjectOf(data as Record<string, unknown>));
    }
    return events;
  });
  return subjects;
}

/** How many documents at most one run renders to bytes (docs/documents.md, "npm run verify"). */
export const RENDERS_PER_RUN = 1000;

/**
 * Which documents, of these kinds in log order, one run renders to bytes: at most `renders`
 * (plus the first of each kind), every n-th, so the sample spans the whole log.
 */
export function renderedSample(kinds: readonly string[], renders: number): boolean[] {
  const stride = Math.max(1, Math.ceil(kinds.length / Math.max(renders, 1)));
  const seen = new Set<string>();
  return kinds.map((kind, index) => {
    const first = !seen.has(kind);
    seen.add(kind);
    return first || index % stride === 0;
  });
}

/**
 * Every issued document rebuilt from `events` (read through the personal-data layer, so an
 * erased subject's fields read "Erased") and compared with what was recorded when it was first
 * rendered (docs/documents.md): its content hash, or the erased form's once its subject is
 * erased, and then its bytes. The events are in memory already: a content hash costs a tenth of
 * a millisecond, a rendering about 12 (docs/documents.md). So every document's content is compared, and the bytes of
 * at most `renders` documents, spread evenly over the log (and the first of each kind): bytes
 * that differ with the same content come from the renderer, which changes them all alike.
 */
export async function checkDocuments(
  pool: pg.Pool,
  events: readonly RecordedEvent[],
  erasedSubjects: ReadonlySet<string>,
  differences: string[],
  onProgress: (done: number, total: number) => void = () => {},
  renders = RENDERS_PER_RUN,
): Promise<DocumentsChecked> {
  const records = await recordsOf(pool);
  const read = readFromMemory(events);
  const issuing = events.filter((event) => issuesDocument(event.type));
  const sample = renderedSample(
    issuing.map((event) => event.type),
    renders,
  );
  const checked: DocumentsChecked = { compared: 0, rendered: 0, erased: 0, unrecorded: 0 };
  for (const [index, event] of issuing.entries()) {
    onProgress(index + 1, issuing.length);
    const document = await issuedDocumentOf(event, read);
    if (!document) {
      differences.push(`${event.streamId}@${event.revision}: ${event.type} issues no document that can be rebuilt`);
      continue;
    }
    const name = `${NAMES[document.kind]} ${document.reference}`;
    const record = records.get(event.id);
    if (!record) {
      checked.unrecorded += 1;
      continue;
    }
    const hash = contentHashOfDocument(document);
    checked.compared += 1;
    if (hash !== record.content_hash) {
      // A subject erased since: the document with every personal field erased (whoever's: a pay
      // statement names a tutor and children of several families) must be the one recorded at issue.
      const erased = await issuedDocumentOf(event, readErased(read));
      const subjects = await subjectsRead(event, read);
      if (
        erased &&
        contentHashOfDocument(erased) === record.erased_content_hash &&
        [...subjects].some((subject) => erasedSubjects.has(subject))
      )
        checked.erased += 1;
      else
        differences.push(
          `${name}: prints content hash ${hash} when rendered again, ${record.content_hash} when it was issued`,
        );
      continue;
    }
    if (!sample[index]) continue;
    checked.rendered += 1;
    const pdf = await renderIssuedDocument(document);
    if (createHash('sha256').update(pdf).digest('hex') !== record.pdf_sha256)
      differences.push(
        `${name}: renders to other bytes than when it was issued, with the same content hash ${hash} (the renderer changed?)`,
      );
  }
  return checked;
}
