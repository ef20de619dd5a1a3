-- Calendar feeds (docs/family-access.md, "Calendar feeds"): a family's of its confirmed workshop
-- bookings (client_id), or the agency's of its upcoming workshops (client_id null). Only the SHA-256
-- hash of the feed's secret is kept; the secret is in its URL, shown once to whoever made it. A new
-- feed of the same owner revokes the one before, and either may be revoked alone.
create table auth.calendar_feeds (
  token_hash text primary key,
  kind text not null check (kind in ('family', 'agency')),
  client_id text,
  created_at timestamptz not null default now(),
  revoked_at timestamptz,
  check ((kind = 'family') = (client_id is not null))
);
create index calendar_feeds_owner on auth.calendar_feeds (kind, client_id) where revoked_at is null;
