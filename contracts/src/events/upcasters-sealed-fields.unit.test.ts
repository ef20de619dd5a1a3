import { describe, expect, it } from 'vitest';
import { type PersonalDataRule, personalDataRules } from './personal-data';
import { type EventData, eventUpcastSteps, type UpcastSteps } from './upcasters';

/**
 * A sealed value is bound to its place (its AES-GCM associated data is `{kid}:{type}.{path}`), and
 * upcasting runs on sealed payloads: a step that moved, copied, dropped or changed a sealed field
 * would hand readers a value that never opens (or a `{ $enc }` object where clear data belongs).
 * So every step of a type with personal fields must leave each of them exactly where it was.
 */

const sentinel = (type: string, path: readonly string[]) => ({
  $enc: 'v1',
  kid: 'sentinel',
  iv: `${type}.${path.join('.')}`,
  ct: 'c2VudGluZWw=',
  tag: 'dGFn',
});

/** A payload holding a distinct sentinel at each of the rule's paths (their parents made as objects). */
function sealedPayload(type: string, rule: PersonalDataRule): EventData {
  const data: EventData = {};
  for (const { path } of rule.fields) {
    let node = data;
    for (const step of path.slice(0, -1)) {
      node[step] ??= {};
      node = node[step] as EventData;
    }
    node[path.at(-1) as string] = sentinel(type, path);
  }
  return data;
}

/** Every place in `value` holding a sentinel, as `path → what is there`. */
function sentinelsIn(value: unknown, path: string[] = [], into = new Map<string, unknown>()) {
  if (typeof value !== 'object' || value === null) return into;
  if ((value as { kid?: unknown }).kid === 'sentinel') into.set(path.join('.'), value);
  else for (const [key, item] of Object.entries(value)) sentinelsIn(item, [...path, key], into);
  return into;
}

/** What each step does to the sealed fields of its type: one line per field not left where it was. */
function sealedFieldsDisturbed(steps: UpcastSteps, rules: Readonly<Record<string, PersonalDataRule>>): string[] {
  const problems: string[] = [];
  for (const [type, byVersion] of Object.entries(steps)) {
    const rule = rules[type];
    if (!rule) continue;
    for (const [version, step] of Object.entries(byVersion)) {
      const input = sealedPayload(type, rule);
      const before = sentinelsIn(structuredClone(input));
      let after: Map<string, unknown>;
      try {
        after = sentinelsIn(step(input));
      } catch (error) {
        problems.push(`${type} v${version}: the step fails on a payload of sealed fields (${error})`);
        continue;
      }
      for (const [path, value] of before) {
        if (!after.has(path)) problems.push(`${type} v${version}: ${path} is no longer where it was sealed`);
        else if (JSON.stringify(after.get(path)) !== JSON.stringify(value)) {
          problems.push(`${type} v${version}: ${path} was changed`);
        }
      }
      for (const path of after.keys()) {
        if (!before.has(path)) problems.push(`${type} v${version}: a sealed value appears at ${path}`);
      }
    }
  }
  return problems;
}

describe('upcasters and sealed fields', () => {
  it("no step of the product's registry moves, copies, drops or changes a sealed field", () => {
    const checked = Object.keys(eventUpcastSteps).filter((type) => personalDataRules[type]);
    // At least one type has both today (TutorActivationEmailSent: `sentTo`), so this checks something.
    expect(checked.length).toBeGreaterThan(0);
    expect(sealedFieldsDisturbed(eventUpcastSteps, personalDataRules)).toEqual([]);
  });

  it('finds a step that moves a sealed field, and one that copies it', () => {
    const rules = {
      Renamed: { subjectOf: () => 's', fields: [{ path: ['contact', 'email'], erased: () => 'Erased' }] },
    };
    const moved: UpcastSteps = {
      Renamed: { 1: ({ contact, ...rest }) => ({ ...rest, contact: { mail: (contact as EventData).email } }) },
    };
    expect(sealedFieldsDisturbed(moved, rules)).toEqual([
      'Renamed v1: contact.email is no longer where it was sealed',
      'Renamed v1: a sealed value appears at contact.mail',
    ]);
    const copied: UpcastSteps = {
      Renamed: { 1: (data) => ({ ...data, replyTo: (data.contact as EventData).email }) },
    };
    expect(sealedFieldsDisturbed(copied, rules)).toEqual(['Renamed v1: a sealed value appears at replyTo']);
    const lowered: UpcastSteps = {
      Renamed: {
        1: (data) => {
          const contact = data.contact as { email: { ct: string } };
          return { ...data, contact: { email: { ...contact.email, ct: contact.email.ct.toLowerCase() } } };
        },
      },
    };
    expect(sealedFieldsDisturbed(lowered, rules)).toEqual(['Renamed v1: contact.email was changed']);
  });
});
