-- An announcement is the transaction's own. The lock check of 001 also accepted a session-level
-- hold of the appenders' lock, which its session may release while the transaction runs: readers
-- then take the transaction for a non-appender, pass its id, and skip its events for good once it
-- commits (all-horizon.ts). The mark is set with the transaction-level lock and, like it, goes
-- with the transaction or with a rolled-back savepoint.
create or replace function es.announce_append() returns void
language plpgsql as $$
begin
  if pg_current_xact_id_if_assigned() is null then
    perform pg_advisory_xact_lock_shared(7412001, 1);
    perform set_config('es.announced', 'yes', true);
  elsif coalesce(current_setting('es.announced', true), '') <> 'yes' or not exists (
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
