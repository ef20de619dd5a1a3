create table tutors (
  id text primary key,
  contact_id text not null,
  first_name text not null,
  last_name text not null,
  address jsonb not null,
  postcode text not null,
  email text not null,
  phone jsonb not null,
  username text not null,
  invoice_prefix text not null,
  start_date date not null,
  end_date date,
  active boolean not null default true,
  user_id text,
  activation_sent_to text,
  activation_expires_at timestamptz
);
create unique index tutors_contact on tutors (contact_id);
create index tutors_name on tutors (last_name, first_name);
