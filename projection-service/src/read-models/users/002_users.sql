create table users (
  id text primary key,
  username text not null,
  role text not null,
  tutor_id text,
  name text not null
);
create unique index users_username on users (lower(username));
