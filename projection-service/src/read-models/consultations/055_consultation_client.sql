-- A consultation's family, for the list's search by name (read-models/name-search.ts).
create index consultations_client on consultations (client_id);
