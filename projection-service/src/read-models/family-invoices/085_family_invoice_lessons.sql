-- Which family invoice billed which lesson (docs/money-models.md, "Family lesson invoices"): one
-- row per lesson line or adjustment line of a lessons invoice, as issued. A credited invoice keeps
-- its rows (join family_invoices.credit_note_id to leave it out); amounts are net of VAT, an
-- adjustment's may be negative.
create table family_invoice_lessons (
  invoice_id text not null,
  lesson_id text not null,
  client_id text not null,
  -- tuition | introduction-fee | adjustment
  kind text not null,
  tutor_id text not null,
  lesson_date date not null,
  amount_pence bigint not null,
  vat_pence bigint not null,
  primary key (invoice_id, lesson_id)
);
create index family_invoice_lessons_lesson on family_invoice_lessons (lesson_id);
create index family_invoice_lessons_client on family_invoice_lessons (client_id);

-- A lessons invoice's VAT total, what the tutor billed for introduction lessons (not in the total),
-- and the names its lines name by id (personal: blanked with the billing details on erasure).
alter table family_invoices add column vat_pence bigint not null default 0;
alter table family_invoices add column tutor_billed jsonb not null default '[]';
alter table family_invoices add column names jsonb not null default '{}';
