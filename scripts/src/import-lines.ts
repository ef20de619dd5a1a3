import type { ImportRowAnswer } from '@agency/contracts';

/** What `npm run import` prints (docs/import.md), apart from the script so it can be tested: one line per row. */

/**
 * A value from the file as the terminal shows it: control characters (a new line, an escape
 * sequence that would recolour or retitle the terminal) spelled out instead of obeyed.
 */
export const printable = (text: string) =>
  Array.from(text, (char) => {
    const code = char.charCodeAt(0);
    const control = code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029;
    return control ? `\\u${code.toString(16).padStart(4, '0')}` : char;
  }).join('');

const WORDS: Record<ImportRowAnswer['outcome'], [dryRun: string, done: string]> = {
  create: ['would create', 'created'],
  update: ['would update', 'updated'],
  unchanged: ['unchanged', 'unchanged'],
  refused: ['refused', 'refused'],
};

/** `row 5  F3  refused: Email is required`: one row's outcome, on one line. */
export const rowLine = ({ row, key, outcome, id, reason }: ImportRowAnswer, dryRun: boolean) =>
  `row ${row}\t${printable(key)}\t${WORDS[outcome][dryRun ? 0 : 1]}${reason ? `: ${printable(reason)}` : id ? `\t${id}` : ''}`;
