-- Each tutor's monthly pay statement (docs/money-models.md, "Pay statements"): issued once, then
-- confirmed by its tutor and paid by pay runs. `lines` as issued (children by id only).
create table pay_statements (
  id text primary key,
  tutor_id text not null,
  month text not null,
  reference text not null,
  date date not null,
  total_pay_pence bigint not null,
  held_pence bigint not null,
  carried_pence bigint not null,
  lines jsonb not null,
  confirmed boolean not null default false,
  paid_pence bigint not null default 0
);
create index pay_statements_tutor on pay_statements (tutor_id, month);
create index pay_statements_month on pay_statements (month);
