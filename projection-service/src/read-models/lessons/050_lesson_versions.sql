-- Lessons as they were, for the views as of a past moment (audit/as-of.ts). A current lesson
-- holds from the position of the event that wrote it (with that event's recorded time, which maps
-- a moment to a position); every version a later event replaced or removed is in lesson_history
-- with the positions between which it held. A million lessons, almost all never changed: their
-- one version is the current row, not written twice.
alter table lessons
  add column valid_from_commit bigint not null,
  add column valid_from_prepare bigint not null,
  add column recorded_at timestamptz not null;
create index lessons_recorded on lessons (recorded_at);

create table lesson_history (
  id text collate "C" not null,
  tutor_id text collate "C" not null,
  month text collate "C" not null,
  engagement_id text not null,
  student_id text not null,
  date date not null,
  duration_hundredths bigint not null,
  rate_pence bigint not null,
  amount_pence bigint not null,
  amount_edited boolean not null,
  commission_bp int not null,
  commission_pence bigint not null,
  partner_bp int not null,
  partner_commission_pence bigint not null,
  valid_from_commit bigint not null,
  valid_from_prepare bigint not null,
  recorded_at timestamptz not null,
  valid_to_commit bigint not null,
  valid_to_prepare bigint not null,
  to_recorded_at timestamptz not null
);
create index lesson_history_month_date on lesson_history (month, date);
create index lesson_history_recorded on lesson_history (recorded_at);
create index lesson_history_to_recorded on lesson_history (to_recorded_at);

-- Every version of each month lock, with the position from which it held (until the next version
-- of the same month: read-models/versions.ts).
create table locked_month_versions (
  tutor_id text not null,
  month text not null,
  invoice_id text,
  removed boolean not null,
  valid_from_commit bigint not null,
  valid_from_prepare bigint not null,
  recorded_at timestamptz not null
);
create index locked_month_versions_next on locked_month_versions (tutor_id, month, valid_from_commit, valid_from_prepare);
create index locked_month_versions_recorded on locked_month_versions (recorded_at);
