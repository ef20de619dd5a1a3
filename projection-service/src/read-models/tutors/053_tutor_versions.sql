-- Every version of each tutor's row, in the columns the views seen as of a past moment read
-- (names, address, spell), with the position from which it held (until the next version:
-- read-models/versions.ts).
-- An erasure rewrites the personal columns of every version, as the events then read.
create table tutor_versions (
  id text not null,
  first_name text,
  last_name text,
  address jsonb,
  postcode text,
  email text,
  start_date date,
  end_date date,
  active boolean,
  removed boolean not null,
  valid_from_commit bigint not null,
  valid_from_prepare bigint not null,
  recorded_at timestamptz not null
);
create index tutor_versions_next on tutor_versions (id, valid_from_commit, valid_from_prepare);
create index tutor_versions_recorded on tutor_versions (recorded_at);
