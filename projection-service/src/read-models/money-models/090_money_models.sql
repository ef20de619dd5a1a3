-- Every money-model choice (docs/money-models.md): the agency's and each engagement's, one row per
-- first day of a month it applies from (a later choice for the same month replaces the earlier).
create table money_model_agency_choices (
  from_date date primary key,
  model text not null,
  vat_rate_bp int not null,
  pay_after_family_pays boolean not null
);

-- model null: the engagement goes back to the agency's model from that month on.
create table money_model_engagement_choices (
  engagement_id text not null,
  from_date date not null,
  model text,
  primary key (engagement_id, from_date)
);

-- The model that applies to engagement E's lessons on date D: its own choice in force on D, unless
-- that says "the agency's" (or it has none), then the agency's, else the spec's default. A standard
-- SQL body (begin atomic) is bound to these tables when created, not looked up by search_path when
-- called: it answers from its own schema whoever calls it (schema-qualified from another pool too),
-- and still after a rebuilt schema is renamed into place.
create function money_model_on(engagement text, on_date date) returns text
language sql stable
begin atomic
  select coalesce(
    (select e.model from money_model_engagement_choices e
      where e.engagement_id = engagement and e.from_date <= on_date
      order by e.from_date desc limit 1),
    (select a.model from money_model_agency_choices a
      where a.from_date <= on_date
      order by a.from_date desc limit 1),
    'tutor-pays-commission');
end;

-- The agency's terms on date D: the model, VAT (basis points) and the pay hold in force, the
-- default (the spec's model, no VAT, pay not held) before any choice. A choice applies to a whole
-- month, so a month's terms are those on its first day.
create function money_terms_on(on_date date)
returns table (model text, vat_rate_bp int, pay_after_family_pays boolean)
language sql stable
begin atomic
  select coalesce(a.model, 'tutor-pays-commission'), coalesce(a.vat_rate_bp, 0), coalesce(a.pay_after_family_pays, false)
    from (select 1) one
    left join lateral (
      select c.model, c.vat_rate_bp, c.pay_after_family_pays from money_model_agency_choices c
       where c.from_date <= on_date
       order by c.from_date desc limit 1
    ) a on true;
end;
