import * as domain from '@agency/domain';
import { describe, expect, it } from 'vitest';
import { deciderFor } from './verify-store';

const ID = '00000000-0000-4000-8000-000000000001';

describe('npm run verify folds every kind of stream the domain names', () => {
  // Each aggregate names its streams `xStream` and folds them with `xDecider`: a new kind of stream
  // that verify does not know would not be replayed, so this lists them all from the domain itself.
  const kinds = Object.entries(domain).flatMap(([area, exports]) =>
    typeof exports === 'object' && exports !== null
      ? Object.entries(exports as Record<string, unknown>)
          .filter(([name, value]) => name.endsWith('Stream') && typeof value === 'function')
          .map(([name, stream]) => ({
            name: `${area}.${name}`,
            streamId: (stream as (...args: string[]) => string)(ID, '2025-01'),
            decider: (exports as Record<string, unknown>)[name.replace(/Stream$/, 'Decider')],
          }))
      : [],
  );

  it('finds the stream kinds (consultations, agency details, sequences and accounts among them)', () => {
    expect(kinds.map((kind) => kind.name)).toEqual(
      expect.arrayContaining([
        'consultation.consultationStream',
        'agency.agencyStream',
        'familyInvoice.sequenceStream',
        'workshop.accountStream',
      ]),
    );
  });

  it.each(kinds)('$name ($streamId) is folded by its own decider', ({ streamId, decider }) => {
    expect(decider).toBeDefined();
    expect(deciderFor(streamId)).toBe(decider);
  });
});
