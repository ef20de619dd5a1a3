-- Every version of each child's name, with the position from which it held (until the next
-- version: read-models/versions.ts), for the views seen as of a past moment. An erasure of the family
-- rewrites the names of every version, as the events then read.
create table child_versions (
  id text not null,
  client_id text,
  first_name text,
  last_name text,
  removed boolean not null,
  valid_from_commit bigint not null,
  valid_from_prepare bigint not null,
  recorded_at timestamptz not null
);
create index child_versions_next on child_versions (id, valid_from_commit, valid_from_prepare);
create index child_versions_client on child_versions (client_id);
create index child_versions_recorded on child_versions (recorded_at);
