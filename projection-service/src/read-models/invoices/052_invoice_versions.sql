-- Every version of each invoice's row, with the position from which it held (until the next
-- version: read-models/versions.ts): the invoices list and the invoice status report as of a past moment
-- read the ones current at that moment's position. A withdrawal, which renames the row, is the
-- removal of the row under its old id and a first version under the new one.
create table invoice_versions (
  id text not null,
  tutor_id text,
  month text,
  reference text,
  date date,
  lesson_count int,
  earnings_pence bigint,
  commission_pence bigint,
  partner_commission_pence bigint,
  items jsonb,
  confirmed boolean,
  paid_pence bigint,
  void boolean,
  removed boolean not null,
  valid_from_commit bigint not null,
  valid_from_prepare bigint not null,
  recorded_at timestamptz not null
);
create index invoice_versions_next on invoice_versions (id, valid_from_commit, valid_from_prepare);
create index invoice_versions_month on invoice_versions (month);
create index invoice_versions_recorded on invoice_versions (recorded_at);
