import { describe, expect, it } from 'vitest';
import { currentEventVersions, eventCatalogue, upcastEvent } from './index';
import { createUpcaster, eventUpcastSteps, MissingUpcaster } from './upcasters';

/** A made-up history of one type: v1 `{ name }`, v2 `{ fullName }`, v3 `{ fullName, initials }`. */
const versions = new Map([
  ['NameGiven', 3],
  ['Other', 1],
]);
const steps = {
  NameGiven: {
    1: ({ name, ...rest }: Record<string, unknown>) => ({ ...rest, fullName: name }),
    2: (data: Record<string, unknown>) => ({
      ...data,
      initials: String(data.fullName)
        .split(' ')
        .map((word) => word[0])
        .join(''),
    }),
  },
};

describe('upcasting by schemaVersion', () => {
  const upcast = createUpcaster(versions, steps);

  it('runs every step from the stored version to the current one', () => {
    expect(upcast('NameGiven', 1, { id: 'x', name: 'Ann Lee' })).toEqual({
      version: 3,
      data: { id: 'x', fullName: 'Ann Lee', initials: 'AL' },
    });
    expect(upcast('NameGiven', 2, { fullName: 'Bo Ek' })).toEqual({
      version: 3,
      data: { fullName: 'Bo Ek', initials: 'BE' },
    });
  });

  it('reads an event stored without a version as version 1', () => {
    expect(upcast('NameGiven', undefined, { name: 'Ann Lee' }).data).toEqual({ fullName: 'Ann Lee', initials: 'AL' });
  });

  it('hands out current, newer and unknown events as they are', () => {
    const data = { fullName: 'Ann Lee', initials: 'AL' };
    expect(upcast('NameGiven', 3, data)).toEqual({ version: 3, data });
    expect(upcast('NameGiven', 4, { whatever: 1 })).toEqual({ version: 4, data: { whatever: 1 } });
    expect(upcast('NeverHeardOf', 1, { a: 1 })).toEqual({ version: 1, data: { a: 1 } });
    expect(upcast('Other', 1, { a: 1 })).toEqual({ version: 1, data: { a: 1 } });
  });

  it('refuses, at start, a version with no step out of it and steps for a type not in the catalogue', () => {
    expect(() => createUpcaster(versions, { NameGiven: { 1: steps.NameGiven[1] } })).toThrow(MissingUpcaster);
    expect(() => createUpcaster(versions, {})).toThrow('No upcaster for NameGiven from version 1');
    expect(() => createUpcaster(versions, { ...steps, Ghost: { 1: (data) => data } })).toThrow(
      'Ghost, which is not in the event catalogue',
    );
  });

  it("the product's registry matches the catalogue: every version has its path to the current one", () => {
    expect(() => createUpcaster(currentEventVersions, eventUpcastSteps)).not.toThrow();
    for (const definition of eventCatalogue.values()) {
      expect(currentEventVersions.get(definition.type)).toBe(definition.version);
      for (let version = 1; version <= definition.version; version++) {
        expect(upcastEvent(definition.type, version, {}).version).toBe(definition.version);
      }
    }
  });
});
