-- Each projection's place in $all, written in the same transaction as the rows it produced.
-- A projection that cannot apply an event stops just before it: `failure` says which event and
-- why, and the runner retries it at `retry_at` (backing off). `following` is true while the
-- projection moves with the live subscription; a projection that is new, rebuilt or was stalled
-- catches up on its own first. `handles` lists its event types, so the command side knows
-- whose events a command appended without importing this service.
create table projection_checkpoints (
  name text primary key,
  version int not null,
  handles text[] not null,
  commit_position bigint not null default 0,
  prepare_position bigint not null default 0,
  following boolean not null default false,
  failed_at timestamptz,
  failure jsonb,
  attempts int not null default 0,
  retry_at timestamptz
);
