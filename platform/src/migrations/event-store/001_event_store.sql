-- The event store (PostgreSQL adapter) as it was before numbered migrations, written so that it
-- also adopts a store made then: every statement may run on tables that exist already
-- (docs/migrations.md, "Adopting a database").
--
-- Append is one round trip: a function that first announces the transaction as an appender
-- (all-horizon.ts), then takes a per-stream advisory lock *before* the transaction writes
-- anything, so the transaction id (assigned at the first write) of a later append to the same
-- stream is always greater. Readers of `$all` order by (transaction_id, global_position) and only
-- read below the horizon (older than every running transaction that may still write events), so
-- an event that commits late is never skipped and each stream is read in revision order.
-- The appender lock's keys (7412001, 1) are APPENDER_LOCK in all-horizon.ts.
create schema if not exists es;

create table if not exists es.events (
  global_position bigint generated always as identity primary key,
  transaction_id xid8 not null default pg_current_xact_id(),
  stream_id text not null,
  stream_revision bigint not null,
  event_id uuid not null unique,
  event_type text not null,
  data jsonb not null,
  metadata jsonb not null,
  recorded_at timestamptz not null default clock_timestamp(),
  unique (stream_id, stream_revision)
);

create index if not exists events_in_global_order on es.events (transaction_id, global_position);
-- The activity log reads a period by the time its events were recorded, page by page.
create index if not exists events_recorded_at on es.events (recorded_at, global_position);

-- Called by every transaction that writes es.events, before its first write of any kind: readers
-- of $all wait for the running transactions that hold this lock and no others (all-horizon.ts).
-- Taken while the transaction has no id yet, so no reader can see the id without the lock; once
-- the id exists without the lock (another write came first, or a rolled-back savepoint released
-- it), readers may already have passed that id, and writing events under it is refused.
create or replace function es.announce_append() returns void
language plpgsql as $$
begin
  if pg_current_xact_id_if_assigned() is null then
    perform pg_advisory_xact_lock_shared(7412001, 1);
  elsif not exists (
    select 1 from pg_locks
     where locktype = 'advisory' and classid = 7412001 and objid = 1
       and objsubid = 2 and pid = pg_backend_pid() and granted
  ) then
    raise exception 'events must be the first thing a transaction writes'
      using errcode = 'ES412',
            hint = 'append (or call es.announce_append()) before any other write of the transaction, and not again after rolling back to a savepoint taken before the first append';
  end if;
end;
$$;

-- p_expected: -1 no stream, -2 any, -3 stream exists, n >= 0 exactly revision n
create or replace function es.append_to_stream(
  p_stream_id text, p_expected bigint, p_ids uuid[], p_types text[], p_data jsonb[], p_metadata jsonb[]
) returns table (next_revision bigint, commit_position text, prepare_position bigint)
language plpgsql as $$
declare
  current_revision bigint;
begin
  perform es.announce_append();
  perform pg_advisory_xact_lock(hashtextextended(p_stream_id, 0));
  select coalesce(max(e.stream_revision), -1) into current_revision
    from es.events e where e.stream_id = p_stream_id;
  if (p_expected = -1 and current_revision <> -1)
     or (p_expected = -3 and current_revision = -1)
     or (p_expected >= 0 and current_revision <> p_expected) then
    raise exception 'wrong expected revision' using errcode = 'ES409', detail = current_revision::text;
  end if;
  return query
    with appended as (
      insert into es.events (stream_id, stream_revision, event_id, event_type, data, metadata)
      select p_stream_id, current_revision + n, id, type, body, meta
        from unnest(p_ids, p_types, p_data, p_metadata) with ordinality as x(id, type, body, meta, n)
      returning stream_revision, transaction_id, global_position
    )
    select max(a.stream_revision), max(a.transaction_id)::text, max(a.global_position) from appended a;
end;
$$;
