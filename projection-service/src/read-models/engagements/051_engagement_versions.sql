-- Every version of each engagement's row, with the position from which it held (until the next
-- version: read-models/versions.ts): the engagement details as of a past moment read the one
-- current at that moment's position.
create table engagement_versions (
  id text not null,
  tutor_id text,
  student_id text,
  start_date date,
  end_date date,
  rate_pence bigint,
  commission_bp int,
  partner_bp int,
  subjects jsonb,
  state jsonb,
  removed boolean not null,
  valid_from_commit bigint not null,
  valid_from_prepare bigint not null,
  recorded_at timestamptz not null
);
create index engagement_versions_next on engagement_versions (id, valid_from_commit, valid_from_prepare);
create index engagement_versions_recorded on engagement_versions (recorded_at);
