import { familyInvoiceIssuedV1ToV2 } from './family-invoice-events';

/**
 * Event evolution: a stored event keeps the payload it was written with, and readers get the
 * current shape. A change to an event's payload is a new version in its `defineEvent` plus one
 * step here, `from` version n to n + 1; reading upcasts an old event step by step to the
 * version the catalogue names. The event store applies this in one place, as rows are read, so
 * streams, `$all` and subscriptions all hand out current payloads.
 */
export type EventData = Record<string, unknown>;

/**
 * One step: the payload of version `n` turned into the payload of version `n + 1`. It runs on the
 * stored payload, personal fields still sealed, and each sealed value is bound to its path: a
 * step leaves every personal field (`personalDataRules`) where it is, unread and unchanged.
 */
export type UpcastStep = (data: EventData) => EventData;

/** Per event type, the step out of each old version: `{ LessonRecorded: { 1: v1ToV2 } }`. */
export type UpcastSteps = Readonly<Record<string, Readonly<Record<number, UpcastStep>>>>;

export type UpcastResult = { version: number; data: EventData };
export type EventUpcaster = (type: string, version: number | undefined, data: EventData) => UpcastResult;

export class MissingUpcaster extends Error {
  constructor(
    readonly type: string,
    readonly from: number,
  ) {
    super(`No upcaster for ${type} from version ${from}`);
  }
}

/**
 * An upcaster for `versions` (each type's current version) and its `steps`. An event written
 * without a version is version 1. A type the catalogue does not know, or an event newer than
 * this code (written by a later release), is handed out as it is: folds and projections ignore
 * what they do not know rather than guess.
 */
export function createUpcaster(versions: ReadonlyMap<string, number>, steps: UpcastSteps = {}): EventUpcaster {
  // Checked once, at start: every version below a type's current one has its step out.
  for (const type of Object.keys(steps)) {
    if (!versions.has(type)) throw new Error(`Upcasters for ${type}, which is not in the event catalogue`);
  }
  for (const [type, current] of versions) {
    for (let version = 1; version < current; version++) {
      if (!steps[type]?.[version]) throw new MissingUpcaster(type, version);
    }
  }
  return (type, storedVersion, data) => {
    const version = storedVersion ?? 1;
    const current = versions.get(type);
    if (current === undefined || version >= current) return { version, data };
    let upcast = data;
    for (let step = version; step < current; step++) {
      const next = steps[type]?.[step];
      if (!next) throw new MissingUpcaster(type, step);
      upcast = next(upcast);
    }
    return { version: current, data: upcast };
  };
}

/** The product's steps: one for each payload change (the catalogue's version went up with it). */
export const eventUpcastSteps: UpcastSteps = {
  // Before the mail outbox the activation e-mail was sent inline: no link was kept for a reactor.
  TutorActivationEmailSent: { 1: (data) => ({ ...data, linkId: null }) },
  // A version 1 roster entry is a version 2 one without `engagement`: its engagement's own stream
  // was written by the command that put it on the roster, so there is nothing to add.
  TutorEngagementStarted: { 1: (data) => data },
  // Lessons invoices gave lines their VAT and lesson (docs/money-models.md, "Family lesson invoices").
  FamilyInvoiceIssued: { 1: familyInvoiceIssuedV1ToV2 },
};
