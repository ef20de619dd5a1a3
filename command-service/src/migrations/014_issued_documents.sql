-- Each issued document as it was first rendered (docs/documents.md): the content hash it printed,
-- the content hash it prints once its subject is erased, and the SHA-256 of its PDF's bytes.
-- `npm run verify` re-renders every document and compares with these. One row a document, keyed
-- by the event that issued it; written once, never updated.
create table command.issued_documents (
  event_id text primary key,
  stream_id text not null,
  kind text not null,
  reference text not null,
  content_hash text not null,
  erased_content_hash text not null,
  pdf_sha256 text not null,
  recorded_at timestamptz not null default now()
);
