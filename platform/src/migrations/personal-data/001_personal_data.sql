-- What the vault ran at every start before numbered migrations: every statement may run on
-- tables that exist already, so a database made then is adopted as it is (docs/migrations.md).
--
-- The data keys, one per data subject, outside the event log. Each key is stored wrapped
-- (AES-256-GCM) by the master key kept in DATA_DIR, so a copy of the database alone decrypts
-- nothing. Erasing a subject deletes its key bytes and keeps the row (shredded_at): the
-- subject's personal fields can never be read again, from any copy of the log.
--
-- Accounting keys (kind = 'accounting') hold what the law makes the agency keep after an
-- erasure (billing details of issued invoices) until retain_until, when the daily job shreds them.
create schema if not exists pii;
create table if not exists pii.subject_keys (
  subject_id text primary key,
  key_id text not null unique,
  key bytea,
  kind text not null default 'subject' check (kind in ('subject', 'accounting')),
  retain_until date,
  created_at timestamptz not null default now(),
  shredded_at timestamptz,
  check ((key is null) = (shredded_at is not null))
);
-- An accounting key's owner: the subject (a family, a booking) whose erasure is what lets the key
-- go once its retention has run; a key whose owner was never erased is kept. Keys made before the
-- owner was recorded name it in their subject id (family-invoice-billing:{owner}).
alter table pii.subject_keys add column if not exists owner text;
update pii.subject_keys set owner = substr(subject_id, length('family-invoice-billing:') + 1)
 where kind = 'accounting' and owner is null and subject_id like 'family-invoice-billing:%';
-- Key ids a subject no longer has: a shredded key replaced by a new one keeps its old id here, so
-- what was sealed under it still reads "Erased" (shredded), not as a key id nobody knows.
create table if not exists pii.retired_keys (
  key_id text primary key,
  subject_id text not null,
  retired_at timestamptz not null default now()
);
