-- Workshop events and their registrations; a moved registration has a row on each event it was on.
create table workshop_events (
  id text primary key,
  description text not null,
  date_time timestamp not null,
  duration_minutes int not null,
  price_pence bigint not null,
  capacity int not null,
  location text not null,
  cancelled boolean not null default false
);

create table workshop_registrations (
  event_id text not null,
  id text not null,
  seq bigserial,
  client_id text,
  -- {firstName, lastName, address, postcode, email, phone}
  contact jsonb not null,
  email text not null,
  -- [{firstName, lastName, school, schoolYear, allergies}]
  children jsonb not null,
  places int not null,
  comments text not null,
  -- registered, waitlisted, deleted or moved
  status text not null,
  moved_from text,
  moved_to text,
  primary key (event_id, id)
);
create index workshop_registrations_id on workshop_registrations (id);
create index workshop_registrations_email on workshop_registrations (email);

-- Which family invoice bills a registration now (a credited invoice's rows are gone).
create table workshop_invoiced (
  registration_id text primary key,
  invoice_id text not null,
  price_pence bigint not null
);
