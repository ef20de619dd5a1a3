-- The migrations runner's own record (docs/migrations.md): each numbered migration applied to
-- this database, by the owner whose folder (or list) it came from, with its file's sha256 (so a
-- file edited after it was applied is refused). Made, or given its checksum column, by the runner,
-- under its lock, the first time it runs on a database.
create schema if not exists migrations;
create table if not exists migrations.applied (
  owner text not null,
  name text not null,
  applied_at timestamptz not null default now(),
  primary key (owner, name)
);
alter table migrations.applied add column if not exists checksum text;
