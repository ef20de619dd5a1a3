-- The lists' search by name (read-models/name-search.ts): `lower(name) like 'word%'` is a range
-- scan of these. An erased family is marked, so that its page offers nothing to change.
create index contacts_first_name_search on contacts (lower(first_name) text_pattern_ops);
create index contacts_last_name_search on contacts (lower(last_name) text_pattern_ops);
create index children_first_name_search on children (lower(first_name) text_pattern_ops);
create index children_last_name_search on children (lower(last_name) text_pattern_ops);
alter table clients add column erased boolean not null default false;
