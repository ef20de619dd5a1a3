-- Part of the baseline (001-008, what the command side ran at every start before numbered
-- migrations): every statement may run on tables that exist already, so a database made then is
-- adopted as it is (docs/migrations.md, "Adopting a database").
-- Tutor usernames and invoice prefixes ever given, never released: the unique keys make a
-- name unique among all tutors, past ones included, even under concurrent saves.
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
-- Names given before this table existed (idempotent: it also adopts a store that has the table).
insert into command.usernames (name, tutor_id)
  select name, tutor_id from command.tutor_names where kind = 'username'
  on conflict do nothing;
insert into command.usernames (name, user_id)
  select lower(username), user_id from auth.accounts a
   where not exists (select 1 from command.usernames u where u.user_id = a.user_id)
  on conflict (name) do update set user_id = excluded.user_id where command.usernames.user_id is null;
