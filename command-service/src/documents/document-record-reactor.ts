import type { EventStore, RecordedEvent } from '@agency/platform';
import { documentRecordOf, ISSUING_EVENTS, readFromStore } from '@agency/platform/documents/issued-documents';
import type pg from 'pg';
import type { Reactor } from '../reactors/reactor';

export const DOCUMENTS_REACTOR = 'documents';

/**
 * Each issued document, rendered once from its events as the PDF routes render it, is recorded
 * in `command.issued_documents`: the content hash it prints (and will print once its subject is
 * erased) and its bytes' SHA-256. `npm run verify` re-renders every document and compares
 * (docs/documents.md). A re-run of the event records nothing new: the first record stands.
 *
 * Unlike most reactors, when it is new to a store it begins at the store's first event: the
 * documents issued before it existed are recorded too, as they render now (in the background,
 * once: 5 to 15 ms a document), so verify has a record of every one.
 */
export async function documentRecordReactor({ db, store }: { db: pg.Pool; store: EventStore }): Promise<Reactor> {
  await db.query(
    'insert into command.reactor_checkpoints (name, handles) values ($1, $2) on conflict (name) do nothing',
    [DOCUMENTS_REACTOR, ISSUING_EVENTS],
  );
  return {
    name: DOCUMENTS_REACTOR,
    handles: ISSUING_EVENTS,
    async react(event: RecordedEvent) {
      const record = await documentRecordOf(event, readFromStore(store));
      if (!record) return;
      await db.query(
        `insert into command.issued_documents
           (event_id, stream_id, kind, reference, content_hash, erased_content_hash, pdf_sha256)
         values ($1, $2, $3, $4, $5, $6, $7) on conflict (event_id) do nothing`,
        [
          record.eventId,
          record.streamId,
          record.kind,
          record.reference,
          record.contentHash,
          record.erasedContentHash,
          record.pdfSha256,
        ],
      );
    },
  };
}
