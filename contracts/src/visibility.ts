import type { Role } from './roles';

/**
 * Which fields of an answer a role may see: the one rule (ARCHITECTURE, "Sessions"). Tutors
 * never see the partner's share of anything: no partner commission, partner rate, partner %
 * or partner basis points, in any answer of either service, under any spelling
 * (`partnerCommission`, `partnerRate`, `partnerPct`, `partnerBp`, `partnerCommissionPence`,
 * a future `partnerShare`...). Admins, partners and auditors see every field.
 *
 * A field is named by its key, wherever it sits in the answer: the rule is applied to the whole
 * JSON answer, so a new route or a new nested field is hidden by default.
 */
/** Health data (a child's allergies) and dates of birth: the office's admins (and auditors) only. */
const ADMINS_ONLY: readonly RegExp[] = [/^allergies$/i, /^dob$/];

/**
 * What the agency keeps to itself from a family (docs/family-access.md): its commission, partner
 * shares, what it pays the tutor and at what rate (`commission…`, `partner…`, `rate`, `…Rate`,
 * `rateBp`, `earnings`, `pay`, `tutorPay`). A family reads only its own family, so its own
 * children's dates of birth and allergies are not kept from it (its subject-access export holds them).
 */
const KEPT_FROM_FAMILIES: readonly RegExp[] = [
  /partner/i,
  /commission/i,
  /earning/i,
  /(^r|R)ate(s|Bp|Pct|Pence)?$/,
  /(^p|P)ay(s|Pence)?$/,
];

const HIDDEN_FROM: Record<Role, readonly RegExp[]> = {
  admin: [],
  partner: [...ADMINS_ONLY],
  tutor: [/partner/i, ...ADMINS_ONLY],
  auditor: [],
  family: KEPT_FROM_FAMILIES,
};

/** Someone whose role is not known (no session) is shown no field that any role is refused. */
const HIDDEN_FROM_ANYONE_UNKNOWN: readonly RegExp[] = Object.values(HIDDEN_FROM).flat();

const hiddenFrom = (role: Role | undefined) => (role ? HIDDEN_FROM[role] : HIDDEN_FROM_ANYONE_UNKNOWN);

/** Whether `role` may see a field named `field` (a key of an answer, at any depth). */
export function maySee(role: Role | undefined, field: string): boolean {
  return !hiddenFrom(role).some((pattern) => pattern.test(field));
}

/**
 * The answer as `role` may see it: a copy without the fields the role may not see, at any depth
 * (objects inside arrays included). It walks the answer as JSON.stringify would (a `toJSON`
 * first, then own enumerable fields), so what is sent is exactly what was checked. The answer
 * itself is left untouched.
 */
export function redactForRole<T>(role: Role | undefined, answer: T): T {
  const hidden = hiddenFrom(role);
  if (hidden.length === 0) return answer;
  const visit = (value: unknown): unknown => {
    if (value === null || typeof value !== 'object') return value;
    const json = value as { toJSON?: () => unknown };
    if (typeof json.toJSON === 'function') return visit(json.toJSON());
    if (Array.isArray(value)) return value.map(visit);
    const kept: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(value)) {
      if (!hidden.some((pattern) => pattern.test(key))) kept[key] = visit(field);
    }
    return kept;
  };
  return visit(answer) as T;
}
