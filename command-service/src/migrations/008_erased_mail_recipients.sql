-- Part of the baseline (001-008, what the command side ran at every start before numbered
-- migrations): every statement may run on tables that exist already, so a database made then is
-- adopted as it is (docs/migrations.md, "Adopting a database").
-- The addresses whose outbox mail every instance deletes, as keyed digests (docs/personal-data.md,
-- "Erasure"): a copy of the database names nobody, and the table stays small (one row an address).
create schema if not exists command;
create table if not exists command.erased_mail_recipients (
  digest text primary key,
  erased_at timestamptz not null default now()
);
