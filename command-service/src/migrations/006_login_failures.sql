-- Part of the baseline (001-008, what the command side ran at every start before numbered
-- migrations): every statement may run on tables that exist already, so a database made then is
-- adopted as it is (docs/migrations.md, "Adopting a database").
create schema if not exists auth;
-- Login attempts not (yet) known to have succeeded, per username (u:) and per address (a:).
create table if not exists auth.login_failures (
  key text primary key,
  failures int not null,
  last_at timestamptz not null
);
