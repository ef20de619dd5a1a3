-- Money is bigint (pence): no stored event, and no sum of them, can overflow a column.
-- One row per engagement with its current terms; `state` is the domain's folded state, so the
-- projection reuses the domain's own period rules instead of restating them in SQL.
create table engagements (
  id text primary key,
  tutor_id text not null,
  student_id text not null,
  start_date date not null,
  end_date date,
  rate_pence bigint not null,
  commission_bp int not null,
  partner_bp int not null,
  subjects jsonb not null,
  state jsonb not null
);
create index engagements_tutor on engagements (tutor_id);
create index engagements_student on engagements (student_id);

-- The history periods: they tile the engagement's life, the last one open while ongoing.
create table engagement_periods (
  engagement_id text not null references engagements (id),
  start_date date not null,
  end_date date,
  rate_pence bigint not null,
  commission_bp int not null,
  partner_bp int not null,
  subjects jsonb not null,
  primary key (engagement_id, start_date)
);
