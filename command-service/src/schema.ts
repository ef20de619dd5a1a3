/** The command side's own tables: credentials (never in events) and processed command ids. */
export const COMMAND_SERVICE_SCHEMA = `
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
`;

/**
 * Tutor usernames and invoice prefixes ever given, never released: the unique keys make a
 * name unique among all tutors, past ones included, even under concurrent saves.
 */
export const TUTOR_SCHEMA = `
create table if not exists command.tutor_names (
  kind text not null check (kind in ('username', 'prefix')),
  name text not null,
  tutor_id text not null,
  primary key (kind, name)
);

-- One-time codes are stored only as SHA-256 hashes; the code itself exists only in the e-mail.
create table if not exists auth.activation_codes (
  code_hash text primary key,
  tutor_id text not null,
  expires_at timestamptz not null,
  used_at timestamptz,
  created_at timestamptz not null default now()
);
create index if not exists activation_codes_tutor on auth.activation_codes (tutor_id);

create table if not exists auth.reset_tokens (
  token_hash text primary key,
  user_id text not null,
  expires_at timestamptz not null,
  used_at timestamptz,
  created_at timestamptz not null default now()
);

-- A link's secret (activation code, reset token) between the request that made it and the mail
-- that carries it: the event names only the id, so no secret is ever in the log. The mail
-- reactor deletes the row once the mail is sent; an expired one is of no use and is deleted too.
create table if not exists auth.pending_links (
  id text primary key,
  secret text not null,
  expires_at timestamptz not null,
  created_at timestamptz not null default now()
);

-- Password reset requests, for the too-many-attempts limit (per account and per address).
create table if not exists auth.reset_requests (
  key text not null,
  requested_at timestamptz not null default now()
);
create index if not exists reset_requests_key on auth.reset_requests (key, requested_at);

-- Every username, tutors' and logins' alike, in one table: its key makes a name unique across
-- both, even under concurrent saves. A tutor's username (tutor_id) is kept for that tutor's own
-- login (user_id, once activated); other logins hold theirs alone. Tutor names are never
-- released; a login's row is written in the same transaction as its credentials.
create table if not exists command.usernames (
  name text primary key check (name = lower(name)),
  tutor_id text,
  user_id text unique,
  check (tutor_id is not null or user_id is not null)
);
-- Names given before this table existed (each start: idempotent).
insert into command.usernames (name, tutor_id)
  select name, tutor_id from command.tutor_names where kind = 'username'
  on conflict do nothing;
insert into command.usernames (name, user_id)
  select lower(username), user_id from auth.accounts a
   where not exists (select 1 from command.usernames u where u.user_id = a.user_id)
  on conflict (name) do update set user_id = excluded.user_id where command.usernames.user_id is null;
`;

/**
 * Public bookings awaiting their address's confirmation (docs/limits.md, "Public bookings"): the
 * hash of each e-mailed link's secret (the secret itself is only in the mail) and when the
 * booking lapses. Kept until then, so a second click on a used link still finds its booking; the
 * lapse chore records the lapse of the unconfirmed ones and deletes every row past its time.
 */
export const BOOKING_SCHEMA = `
create table if not exists command.booking_links (
  token_hash text primary key,
  event_id text not null,
  registration_id text not null unique,
  link_id text not null,
  expires_at timestamptz not null,
  created_at timestamptz not null default now()
);
create index if not exists booking_links_expiry on command.booking_links (expires_at);
`;
