/**
 * The last invoice number given to each tutor. Numbers are taken with one `update … returning`
 * (a row lock), so two invoices of one tutor never share a number, even when generated at the
 * same moment; a number taken by a generation that then fails is skipped, never given again.
 */
export const INVOICE_SCHEMA = `
create schema if not exists invoice;
create table if not exists invoice.reference_counters (
  tutor_id text primary key,
  last_number int not null check (last_number > 0)
);
`;
