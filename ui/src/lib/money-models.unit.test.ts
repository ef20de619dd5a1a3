import { describe, expect, it } from 'vitest';
import { monthNote } from './money-models';

describe("a tutor's month note in the invoice status report", () => {
  it('says nothing for the spec’s model alone, or no lessons', () => {
    expect(monthNote(undefined)).toBeNull();
    expect(monthNote(['tutor-pays-commission'])).toBeNull();
  });

  it('says there is no commission invoice when every lesson is billed by the agency', () => {
    expect(monthNote(['agency-sells-tuition'])).toBe('no commission invoice: billed by the agency');
    expect(monthNote(['agency-sells-tuition', 'introduction'])).toBe(
      'no commission invoice: billed by the agency; an introduction, the agency bills the family its fee',
    );
  });

  it('says the commission invoice covers part of a mixed month', () => {
    expect(monthNote(['introduction', 'tutor-pays-commission'])).toBe(
      'commission invoice for part of the month; others an introduction, the agency bills the family its fee',
    );
  });
});
