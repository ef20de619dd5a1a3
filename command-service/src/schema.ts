/** The command side's own tables: credentials (never in events) and processed command ids. */
export const COMMAND_SERVICE_SCHEMA = `
create schema if not exists auth;
create table if not exists auth.accounts (
  user_id text primary key,
  username text not null,
  password_hash text not null,
  updated_at timestamptz not null default now()
);
create unique index if not exists accounts_username on auth.accounts (lower(username));

create schema if not exists command;
create table if not exists command.processed_commands (
  command_id text primary key,
  user_id text not null,
  status_code int,
  response jsonb,
  created_at timestamptz not null default now()
);
`;
