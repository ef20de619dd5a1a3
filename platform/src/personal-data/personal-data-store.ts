import { type EventData, type PersonalDataRule, personalDataRules } from '@agency/contracts';
import { concatMap, from, type Observable } from 'rxjs';
import { observeFollow } from '../event-store/observe-follow';
import {
  type AppendResult,
  type EventStore,
  type EventToAppend,
  type ExpectedRevision,
  type Position,
  type RecordedEvent,
  START,
  unreadableEvent,
} from '../event-store/port';
import { addYears, isSealed, type PersonalDataVault, UnreadableSealedValue } from './vault';

type Rules = Readonly<Record<string, PersonalDataRule>>;

const pathName = (type: string, path: readonly string[]) => `${type}.${path.join('.')}`;

/** The object holding the field at `path` (made a copy of, all the way down), or undefined. */
function parentOf(data: EventData, path: readonly string[]): Record<string, unknown> | undefined {
  let node: Record<string, unknown> = data;
  for (const step of path.slice(0, -1)) {
    const next = node[step];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) return undefined;
    const copy = { ...(next as Record<string, unknown>) };
    node[step] = copy;
    node = copy;
  }
  return node;
}

type PersonalField = PersonalDataRule['fields'][number];

/**
 * A copy of the payload in which each of `fields` whose parent is there and that `takes` (given
 * its value and whether it is present) holds what `replace` answers for it; other fields untouched.
 */
async function replaceFields<V>(
  data: EventData,
  fields: readonly PersonalField[],
  takes: (value: unknown, present: boolean) => value is V,
  replace: (value: V, field: PersonalField) => Promise<unknown>,
): Promise<EventData> {
  const copy = { ...data };
  for (const field of fields) {
    const parent = parentOf(copy, field.path);
    const name = field.path.at(-1) as string;
    if (!parent) continue;
    const value = parent[name];
    if (!takes(value, name in parent)) continue;
    parent[name] = await replace(value, field);
  }
  return copy;
}

/** Seals the personal fields of one event's payload under its subject's key (other fields untouched). */
export async function encryptPersonalFields(
  vault: PersonalDataVault,
  type: string,
  data: EventData,
  rules: Rules = personalDataRules,
): Promise<EventData> {
  const rule = rules[type];
  if (!rule) return data;
  const subject = rule.subjectOf(data);
  if (rule.retainedFrom) {
    await vault.retain(
      subject,
      addYears(rule.retainedFrom(data), vault.retentionYears),
      rule.ownerOf?.(data) ?? subject,
    );
  }
  return replaceFields(
    data,
    rule.fields,
    (value, present): value is unknown => present && !isSealed(value),
    (value, field) => vault.encrypt(subject, value, pathName(type, field.path)),
  );
}

/**
 * The clear payload: each sealed field opened, or its erased value when its subject's key is gone.
 * Throws `UnreadableSealedValue` for a field that cannot be opened otherwise.
 */
export async function decryptPersonalFields(
  vault: PersonalDataVault,
  type: string,
  data: EventData,
  rules: Rules = personalDataRules,
): Promise<EventData> {
  const rule = rules[type];
  if (!rule) return data;
  return replaceFields(
    data,
    rule.fields,
    (value) => isSealed(value),
    (value, field) => vault.decrypt(value, pathName(type, field.path), field.erased),
  );
}

/** The key ids a batch of events was sealed with, to load them in one query. */
function keyIdsOf(events: RecordedEvent[], rules: Rules): string[] {
  const kids: string[] = [];
  for (const event of events) {
    const rule = rules[event.type];
    if (!rule || event.readError) continue;
    for (const field of rule.fields) {
      let node: unknown = event.data;
      for (const step of field.path) node = (node as Record<string, unknown> | undefined)?.[step];
      if (isSealed(node)) kids.push(node.kid);
    }
  }
  return kids;
}

/**
 * Any event store, with personal data encrypted per data subject: the personal fields of each
 * event (contracts' `personalDataRules`) are sealed as they are appended and opened as they are
 * read, through every way of reading (streams, `$all`, subscriptions). Deciders, projections,
 * queries, PDFs and e-mails see clear values (or "Erased"); only the vault handles keys.
 * Upcasting happens in the adapter underneath, on sealed payloads: an upcaster must leave each
 * sealed field where it is and not read it (a sealed value is bound to its path).
 *
 * An event with a field that cannot be opened (see `UnreadableSealedValue`) is handed out marked
 * unreadable, in its place: it stops only the readers that need it, and a fold that meets it fails.
 */
export class PersonalDataEventStore implements EventStore {
  readonly followAll?: EventStore['followAll'];

  constructor(
    private readonly inner: EventStore,
    readonly vault: PersonalDataVault,
    private readonly rules: Rules = personalDataRules,
  ) {
    const follow = inner.followAll?.bind(inner);
    if (follow) {
      this.followAll = (from, handle, options) =>
        follow(from, async (events) => handle(await this.decryptAll(events)), options);
    }
  }

  /** The vault's count of keys dropped (`PersonalDataVault.erasures`): events opened before a change of it may hold erased values. */
  erasures(): number {
    return this.vault.erasures;
  }

  private async decrypt(event: RecordedEvent): Promise<RecordedEvent> {
    if (!this.rules[event.type] || event.readError) return event;
    try {
      return { ...event, data: await decryptPersonalFields(this.vault, event.type, event.data, this.rules) };
    } catch (error) {
      // Only what is wrong with this event marks it; anything else (the database) fails the read.
      if (error instanceof UnreadableSealedValue) return unreadableEvent(event, error);
      throw error;
    }
  }

  /**
   * The events opened, all after the latest erasure this vault knows of when they are handed on:
   * opening one may read the key table (a key id not cached), and a subject erased meanwhile may
   * own an event opened before it, so the batch is opened again (what `LogTail` holds relies on it).
   */
  private async decryptAll(events: RecordedEvent[]): Promise<RecordedEvent[]> {
    for (;;) {
      const erasures = this.vault.erasures;
      await this.vault.preload(keyIdsOf(events, this.rules));
      const clear: RecordedEvent[] = [];
      for (const event of events) clear.push(await this.decrypt(event));
      if (this.vault.erasures === erasures) return clear;
    }
  }

  async readStream(streamId: string, options?: { fromRevision?: number }): Promise<RecordedEvent[]> {
    return this.decryptAll(await this.inner.readStream(streamId, options));
  }

  async appendToStream(
    streamId: string,
    events: EventToAppend[],
    options: { expectedRevision: ExpectedRevision },
  ): Promise<AppendResult> {
    const sealed: EventToAppend[] = [];
    for (const event of events) {
      sealed.push({ ...event, data: await encryptPersonalFields(this.vault, event.type, event.data, this.rules) });
    }
    return this.inner.appendToStream(streamId, sealed, options);
  }

  async readAll(options?: { from?: Position; limit?: number }): Promise<RecordedEvent[]> {
    return this.decryptAll(await this.inner.readAll(options));
  }

  head(): Promise<Position> {
    return this.inner.head();
  }

  subscribeToAll(position?: Position): Observable<RecordedEvent> {
    if (this.followAll) return observeFollow(this.followAll, position ?? START);
    return this.inner.subscribeToAll(position).pipe(concatMap((event) => from(this.decrypt(event))));
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
