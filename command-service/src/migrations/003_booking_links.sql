-- Part of the baseline (001-008, what the command side ran at every start before numbered
-- migrations): every statement may run on tables that exist already, so a database made then is
-- adopted as it is (docs/migrations.md, "Adopting a database").
-- Public bookings awaiting their address's confirmation (docs/limits.md, "Public bookings"): the
-- hash of each e-mailed link's secret (the secret itself is only in the mail) and when the
-- booking lapses. Kept until then, so a second click on a used link still finds its booking; the
-- lapse chore records the lapse of the unconfirmed ones and deletes every row past its time.
create table if not exists command.booking_links (
  token_hash text primary key,
  event_id text not null,
  registration_id text not null unique,
  link_id text not null,
  expires_at timestamptz not null,
  created_at timestamptz not null default now()
);
create index if not exists booking_links_expiry on command.booking_links (expires_at);
