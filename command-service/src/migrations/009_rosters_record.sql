-- Before numbered migrations, the one data migration (engagements started before tutors kept a
-- roster put on it, command-service's data migration 001_tutor_rosters) kept its own record in
-- command.migrations, made at every start. That record moves into the runner's table, so a store
-- where it ran never runs it again, and the old table goes (docs/migrations.md).
create table if not exists command.migrations (name text primary key, done_at timestamptz not null default now());
insert into migrations.applied (owner, name, applied_at)
  select 'command-data', '001_tutor_rosters', done_at from command.migrations where name = 'tutor-rosters'
  on conflict do nothing;
drop table command.migrations;
