import { type BasisPoints, commissionOf, formatPercent, formatPounds, type Pence } from '../shared/money';

/** An invoice item's figures: the month's earnings at one commission rate, and the commission on them. */
type Item = { commissionBp: BasisPoints; earningsPence: Pence; commissionPence: Pence };

/**
 * How an invoice item's commission was worked out, for the confirmation page and the document:
 * the rate is applied to each lesson and rounded half-up to the penny per lesson (docs: ARCHITECTURE,
 * "Rounding"), then the lessons' commissions are added up, so the item can differ by a few pence
 * from the rate applied to its total; when it does, the sentence says by how much and why.
 */
export function commissionNote(item: Item): string {
  const percent = `${formatPercent(item.commissionBp)}%`;
  const said = `${percent} commission on each lesson, rounded to the penny per lesson: ${formatPounds(item.commissionPence)}`;
  const inOneSum = commissionOf(item.earningsPence, item.commissionBp);
  if (inOneSum === item.commissionPence) return `${said}.`;
  const difference = formatPounds(Math.abs(inOneSum - item.commissionPence));
  return `${said} (${percent} of ${formatPounds(item.earningsPence)} in one sum would be ${formatPounds(inOneSum)}: the ${difference} between them is the rounding of each lesson).`;
}
