-- Every recorded lesson with the values it was priced at (pence, basis points, hundredths of an hour).
-- The indexed keys (ids and 'YYYY-MM') compare byte by byte (collate "C", the same order as the
-- database's C.UTF-8 for them): a rebuild inserts a million lessons into these indexes, and with
-- the locale's strcoll every comparison cost more (about 12 % of a rebuild's database time at scale).
create table lessons (
  id text collate "C" primary key,
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
  partner_commission_pence bigint not null
);
create index lessons_tutor_month on lessons (tutor_id, month);
create index lessons_month on lessons (month);

-- A month whose lessons an invoice has locked.
create table locked_months (
  tutor_id text not null,
  month text not null,
  invoice_id text not null,
  primary key (tutor_id, month)
);
