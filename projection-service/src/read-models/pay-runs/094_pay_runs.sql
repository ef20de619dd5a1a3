-- Each month's pay run as last prepared, and the day it was paid (docs/money-models.md, "Pay runs").
-- No bank details here: the lines name the version of the tutor's sealed details they pay into.
create table pay_runs (
  id text primary key,
  month text not null,
  prepared_on date not null,
  paid_on date,
  total_pence bigint not null,
  tutors int not null,
  blocked int not null,
  lines jsonb not null,
  waiting jsonb not null,
  -- Once paid: each payment the run makes (statement, amount), as PayRunPaid names them.
  payments jsonb not null default '[]'
);
