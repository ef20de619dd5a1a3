-- The tutors list's search by name (read-models/name-search.ts).
create index tutors_first_name_search on tutors (lower(first_name) text_pattern_ops);
create index tutors_last_name_search on tutors (lower(last_name) text_pattern_ops);
