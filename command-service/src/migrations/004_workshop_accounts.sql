-- Part of the baseline (001-008, what the command side ran at every start before numbered
-- migrations): every statement may run on tables that exist already, so a database made then is
-- adopted as it is (docs/migrations.md, "Adopting a database").
-- Which workshop account (workshop-account-{id}) an e-mail address books on: a random id, so
-- no stream name holds anything derived from the address (stream names outlive an erasure and are
-- shown to auditors). The lookup row is the only link from the address to the id; it names the
-- data subject it was made for (the family, or the booking of no known family), and erasing that
-- subject deletes it (docs/personal-data.md). A booking keeps the id it was made with.
create table if not exists command.workshop_accounts (
  email text primary key check (email = lower(email)),
  account_id text not null unique,
  subject text not null,
  created_at timestamptz not null default now()
);
create index if not exists workshop_accounts_subject on command.workshop_accounts (subject);
