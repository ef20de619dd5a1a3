-- Part of the baseline (001-008, what the command side ran at every start before numbered
-- migrations): every statement may run on tables that exist already, so a database made then is
-- adopted as it is (docs/migrations.md, "Adopting a database").
-- The last invoice number each tutor was given while numbers came from this counter (before they
-- were taken in each tutor's invoice-numbers-{tutorId} stream). Nothing takes numbers here any
-- more: the invoices reactor reads a tutor's row as the number its sequence continues after, so a
-- store that had numbers here never gives one of them again.
create schema if not exists invoice;
create table if not exists invoice.reference_counters (
  tutor_id text primary key,
  last_number int not null check (last_number > 0)
);
