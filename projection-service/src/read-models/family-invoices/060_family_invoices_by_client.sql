-- A family's invoices, newest first (its page, the ledger filtered by family), without reading every family's.
create index family_invoices_client on family_invoices (client_id, date);
