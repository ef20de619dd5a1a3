-- What the product ran at every start before numbered migrations: every statement may run on
-- tables that exist already, so a database made then is adopted as it is (docs/migrations.md).
--
-- Server-side sessions, in the command side's auth schema; both services read them on every
-- authenticated request. The id is 256 random bits and travels only inside the signed token (sid).
create schema if not exists auth;
create table if not exists auth.sessions (
  id text primary key,
  user_id text not null,
  created_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now(),
  ended_at timestamptz,
  ended_reason text,
  user_agent text,
  address text
);
create index if not exists sessions_user_live on auth.sessions (user_id) where ended_at is null;
