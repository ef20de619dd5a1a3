-- Every recorded lesson with the values it was priced at (pence, basis points, hundredths of an hour).
create table lessons (
  id text primary key,
  tutor_id text not null,
  month text not null,
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
