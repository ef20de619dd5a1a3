-- The workflows that follow a workshop command run a moment later (reactors); these tables let the
-- screens show one as under way until its last step is in the log.

-- A move whose move-out from the old event is not recorded yet: the registration is on both events
-- until then. One row per registration and event it is leaving.
create table workshop_moves_under_way (
  registration_id text not null,
  from_event_id text not null,
  to_event_id text not null,
  primary key (registration_id, from_event_id)
);

-- The invoices that billed a cancelled event's registrations when it was cancelled (not those of a
-- registration moving away then: its invoice goes with it). Each is to be credited; a credit note on
-- the family invoice says it was.
create table workshop_cancellation_invoices (
  event_id text not null,
  invoice_id text not null,
  primary key (event_id, invoice_id)
);
