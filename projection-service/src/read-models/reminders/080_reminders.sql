-- The reminder schedule in force (one row once set) and each reminder recorded (docs/reminders.md).
create table reminder_schedule (
  id int primary key check (id = 1),
  days int[] not null,
  late_fee_pence bigint not null
);

create table family_invoice_reminders (
  invoice_id text not null,
  step int not null,
  client_id text not null,
  days_after_due int not null,
  date date not null,
  outstanding_pence bigint not null,
  late_fee_invoice_id text,
  late_fee_pence bigint,
  primary key (invoice_id, step)
);
create index family_invoice_reminders_client on family_invoice_reminders (client_id);
