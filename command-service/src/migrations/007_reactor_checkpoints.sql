-- Part of the baseline (001-008, what the command side ran at every start before numbered
-- migrations): every statement may run on tables that exist already, so a database made then is
-- adopted as it is (docs/migrations.md, "Adopting a database").
-- Each reactor's place in $all: every event at or before it has been reacted to. A reactor that
-- cannot react to an event stops just before it: failure says which event and why, retry_at when
-- it tries again (backing off); it never skips the event.
create table if not exists command.reactor_checkpoints (
  name text primary key,
  handles text[] not null,
  commit_position bigint not null default 0,
  prepare_position bigint not null default 0,
  failed_at timestamptz,
  failure jsonb,
  attempts int not null default 0,
  retry_at timestamptz,
  updated_at timestamptz not null default now()
);
