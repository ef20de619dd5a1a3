-- One row per family invoice as issued, with what was paid and the credit note that cancelled it.
create table family_invoices (
  id text primary key,
  reference text not null unique,
  date date not null,
  due_date date not null,
  client_id text not null,
  billed_kind text not null,
  billed_id text not null,
  -- {name, address, postcode, email}: the family's first contact when it was issued.
  billing jsonb not null,
  -- [{description, amountPence}]
  lines jsonb not null,
  total_pence bigint not null,
  paid_pence bigint not null default 0,
  credit_note_id text unique,
  credit_note_reference text unique,
  credit_note_date date,
  credit_reason text
);
create index family_invoices_billed on family_invoices (billed_kind, billed_id);

create table family_payments (
  id text primary key,
  invoice_id text not null,
  date date not null,
  amount_pence bigint not null
);
create index family_payments_invoice on family_payments (invoice_id);
