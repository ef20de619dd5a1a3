-- A line's VAT and its rate (lessons invoices sold by the agency, docs/money-models.md): 0 on every
-- other line. Amounts stay net of VAT (tax exclusive).
alter table accounting_rows add column vat_pence bigint not null default 0;
alter table accounting_rows add column vat_rate_bp int not null default 0;
