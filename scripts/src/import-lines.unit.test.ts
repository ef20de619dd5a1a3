import { describe, expect, it } from 'vitest';
import { rowLine } from './import-lines';

describe('npm run import: the rows printed', () => {
  it("prints a row on one line, a file's control characters spelled out rather than obeyed", () => {
    const line = rowLine(
      { row: 3, key: 'F\u001b]0;owned\u0007', outcome: 'refused', reason: 'The family has no child A\nB' },
      false,
    );
    expect(line).toBe('row 3\tF\\u001b]0;owned\\u0007\trefused: The family has no child A\\u000aB');
    expect(rowLine({ row: 2, key: 'F1', outcome: 'create', id: 'x' }, true)).toBe('row 2\tF1\twould create\tx');
  });
});
