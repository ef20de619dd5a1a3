-- The month list pages in date order (then names, then id): with the date in the index the
-- database reads a page's days only (an incremental sort), not the whole month, for one tutor or all.
drop index lessons_month;
drop index lessons_tutor_month;
create index lessons_month_date on lessons (month, date);
create index lessons_tutor_month_date on lessons (tutor_id, month, date);
