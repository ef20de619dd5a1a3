-- The runner's place in $all, written in the same transaction as the rows it produced.
create table checkpoint (
  id boolean primary key default true check (id),
  commit_position bigint not null default 0,
  prepare_position bigint not null default 0
);
insert into checkpoint default values;
