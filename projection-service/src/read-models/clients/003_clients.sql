create table clients (
  id text primary key,
  start_date date not null,
  active boolean not null default true
);

create table contacts (
  id text primary key,
  client_id text not null references clients (id),
  seq int not null,
  first_name text not null,
  last_name text not null,
  address jsonb not null,
  postcode text not null,
  email text not null,
  phone jsonb not null,
  dob date
);
create index contacts_client on contacts (client_id, seq);

create table children (
  id text primary key,
  client_id text not null references clients (id),
  first_name text not null,
  last_name text not null,
  dob date not null
);
create index children_client on children (client_id);
