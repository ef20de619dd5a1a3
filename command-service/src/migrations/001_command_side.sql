-- Part of the baseline (001-008, what the command side ran at every start before numbered
-- migrations): every statement may run on tables that exist already, so a database made then is
-- adopted as it is (docs/migrations.md, "Adopting a database").
-- The command side's own tables: credentials (never in events) and processed command ids.
create schema if not exists auth;
create table if not exists auth.accounts (
  user_id text primary key,
  username text not null,
  password_hash text not null,
  updated_at timestamptz not null default now()
);
create unique index if not exists accounts_username on auth.accounts (lower(username));

create schema if not exists command;
create table if not exists command.processed_commands (
  command_id text primary key,
  user_id text not null,
  status_code int,
  response jsonb,
  created_at timestamptz not null default now()
);
-- started_at: the command's "now", kept for a retry; lease_until: an unanswered claim older than
-- this may be taken over (its runner crashed); owner: the runner holding the lease.
alter table command.processed_commands
  add column if not exists started_at timestamptz,
  add column if not exists lease_until timestamptz,
  add column if not exists owner text;
-- fingerprint: the action the command id was first claimed for (a keyed digest of its route and
-- what it sends); the id sent with any other is refused (docs/command-ids.md). Null on older rows.
-- response: { answer, sealed?, position, visible }: an answer holding anyone's personal data is
-- sealed under their keys, beside its erased form.
alter table command.processed_commands
  add column if not exists fingerprint text;

-- The mail reactor's record of each message it handed to the mail server (or that was refused
-- for good), by the triggering event and the message's place among that event's messages: a
-- re-run of the event (a crash before its checkpoint moved, a second leader) skips these.
create table if not exists command.mail_sent (
  event_id text not null,
  message_index int not null,
  outcome text not null check (outcome in ('sent', 'refused')),
  recorded_at timestamptz not null default now(),
  primary key (event_id, message_index)
);
