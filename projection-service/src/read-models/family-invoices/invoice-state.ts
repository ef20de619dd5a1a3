/**
 * A family invoice's state and what is owed on it, over a `family_invoices` row aliased `f`: the
 * one rule of the ledger and of the family's page. Nothing is owed once a credit note cancelled
 * it, whatever was paid (domain/family-invoice `outstandingOf`); else what its total leaves.
 */
export const invoiceOwedSql = (f: string) =>
  `case when ${f}.credit_note_id is null then greatest(${f}.total_pence - ${f}.paid_pence, 0) else 0 end`;

/** `credited`, `paid`, `part-paid` or `unpaid` (contracts' FAMILY_INVOICE_STATES). */
export const invoiceStateSql = (f: string) =>
  `case when ${f}.credit_note_id is not null then 'credited'
        when ${f}.paid_pence >= ${f}.total_pence then 'paid'
        when ${f}.paid_pence > 0 then 'part-paid'
        else 'unpaid' end`;
