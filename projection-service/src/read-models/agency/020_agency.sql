-- The agency's own details: one row, the last AgencyDetailsSet.
create table agency_details (
  id int primary key default 1 check (id = 1),
  details jsonb not null
);
