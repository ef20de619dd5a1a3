-- A session's end is told to every process that reuses live session checks (sessions.ts,
-- `cacheChecks`), whoever ends it: the product through `Sessions`, an erasure deleting the rows,
-- another instance, or plain SQL. So is any change that shortens its life (its last activity or
-- its start moved back), which only plain SQL makes. A keepalive, which only lengthens it, is not
-- told. The payload is the user's id, never the session's.
create or replace function auth.session_ended() returns trigger language plpgsql as $$
begin
  perform pg_notify('session_ended', old.user_id);
  return null;
end
$$;
drop trigger if exists session_ended on auth.sessions;
create trigger session_ended after update on auth.sessions for each row
  when (old.ended_at is distinct from new.ended_at or old.user_id is distinct from new.user_id
    or new.last_seen_at < old.last_seen_at or new.created_at is distinct from old.created_at)
  execute function auth.session_ended();
drop trigger if exists session_deleted on auth.sessions;
create trigger session_deleted after delete on auth.sessions for each row execute function auth.session_ended();
