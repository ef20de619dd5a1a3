-- Which tutor teaches which child: filled by the engagement projection; scopes what a tutor sees.
create table tutor_students (
  tutor_id text not null,
  child_id text not null,
  engagement_id text primary key,
  current boolean not null
);
create index tutor_students_tutor on tutor_students (tutor_id);
create index tutor_students_child on tutor_students (child_id);
