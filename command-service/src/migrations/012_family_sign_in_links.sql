-- Family sign-in links (docs/family-access.md), stored only as SHA-256 hashes of their secrets (the
-- secret is only in the e-mail, and in auth.pending_links until the mail reactor has sent it). A
-- link is spent by the one update that sets used_at, so two requests with one link cannot both sign
-- in. Rows are kept a day after they expire, so a second click is told "used" or "expired".
create table auth.family_sign_in_links (
  token_hash text primary key,
  contact_id text not null,
  client_id text not null,
  expires_at timestamptz not null,
  used_at timestamptz,
  created_at timestamptz not null default now()
);
create index family_sign_in_links_contact on auth.family_sign_in_links (contact_id);
