-- One row per generated invoice (a tutor's month), with the amounts it was generated with. A
-- withdrawn invoice stays as a void row (its id suffixed with ~ and its reference), so the month
-- can be invoiced again under the same id while the void reference is still listed.
create table invoices (
  id text primary key,
  tutor_id text not null,
  month text not null,
  reference text not null,
  date date not null,
  lesson_count int not null,
  earnings_pence bigint not null,
  commission_pence bigint not null,
  partner_commission_pence bigint not null,
  -- [{commissionBp, earningsPence, commissionPence}], lowest rate first.
  items jsonb not null,
  confirmed boolean not null default false,
  paid_pence bigint not null default 0,
  void boolean not null default false
);
create unique index invoices_tutor_month on invoices (tutor_id, month) where not void;
create index invoices_month on invoices (month);

create table invoice_payments (
  id text primary key,
  invoice_id text not null,
  date date not null,
  amount_pence bigint not null
);
create index invoice_payments_invoice on invoice_payments (invoice_id);
