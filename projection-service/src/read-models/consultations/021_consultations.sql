-- One row per consultation, as last recorded or changed; names are joined from the clients read model.
create table consultations (
  id text primary key,
  client_id text not null,
  child_id text not null,
  date date not null,
  amount_pence bigint not null,
  -- null: no assessment; else {subjects, tutorId}.
  assessment jsonb,
  -- The family invoice that bills it now.
  invoice_id text not null,
  cancelled boolean not null default false
);
create index consultations_date on consultations (date desc);
