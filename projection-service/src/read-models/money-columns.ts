/**
 * Money columns in the read models are `bigint` (pence; durations in hundredths of an hour), so
 * no stored event and no sum of them can overflow. node-postgres hands `bigint` out as a string;
 * the queries turn them back into numbers here. Bounded inputs keep every value and every sum far
 * below 2^53, so the number is exact; one that is not is an error, never a silently rounded figure.
 */
export function penceFrom(value: unknown): number {
  if (typeof value === 'number') return value;
  const number = typeof value === 'string' ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(number))
    throw new Error(`A money column holds ${String(value)}, not a whole number of pence`);
  return number;
}

const MONEY_COLUMN = /_(pence|hundredths)$/;

/** The row with every `…_pence` and `…_hundredths` column (that is not null) as a number. */
export function withMoney<Row extends Record<string, unknown>>(row: Row): Row {
  const converted: Record<string, unknown> = { ...row };
  for (const [key, value] of Object.entries(row)) {
    if (MONEY_COLUMN.test(key) && value !== null && value !== undefined) converted[key] = penceFrom(value);
  }
  return converted as Row;
}
