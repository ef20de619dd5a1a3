-- The accountant's export (docs/accounting-export.md): one row per line of each sales document
-- (tutors' commission invoices once confirmed, family invoices, credit notes) and one per payment,
-- each with a stable id and the position of the event that recorded it.
create table accounting_rows (
  row_id text primary key,
  part text not null,
  source text not null,
  document_id text not null,
  line_no int not null,
  doc_number text not null,
  -- A credit note's or a payment's invoice; null on an invoice's own rows.
  against_number text,
  contact_id text not null,
  -- The name and e-mail billed (families); null for a tutor (named by the tutors read model).
  contact_name text,
  contact_email text,
  date date not null,
  due_date date not null,
  description text not null,
  amount_pence bigint not null,
  commit_position bigint not null,
  prepare_position bigint not null
);
create index accounting_rows_period on accounting_rows (part, date);
-- By pattern (byte order): a tutor's payment finds its invoice's latest sale by the prefix of its
-- document id (`invoice~reference`), which an index in the database's collation cannot serve
-- (every payment scanned the table); equality lookups use it all the same.
create index accounting_rows_document on accounting_rows (document_id text_pattern_ops);
create index accounting_rows_contact on accounting_rows (contact_id);

-- A tutor's generated invoice until it is confirmed (only then is it a sale), and the payment terms in force.
create table accounting_tutor_drafts (invoice_id text primary key, generated jsonb not null);
create table accounting_terms (id int primary key check (id = 1), payment_terms_days int not null);
