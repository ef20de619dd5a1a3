import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, randomUUID } from 'node:crypto';
import type pg from 'pg';
import { migrate, PERSONAL_DATA_MIGRATIONS } from '../migrations';

/** One encrypted field, in place of its clear value in an event's payload. */
export type Sealed = { $enc: 'v1'; kid: string; iv: string; ct: string; tag: string };

export function isSealed(value: unknown): value is Sealed {
  return typeof value === 'object' && value !== null && (value as { $enc?: unknown }).$enc === 'v1';
}

/**
 * The channel on which an erasure is announced to every process sharing the database (the payload
 * is the subject's id); besides the vaults, each instance's outbox clean-up follows it.
 */
export const SHREDDED_CHANNEL = 'pii_shredded';

/** A data key: live, shredded (`key: null`), or stored bytes this master key does not unwrap (`broken`). */
type Key = { kid: string; subject: string; key: Buffer | null; broken?: string };

const ALGORITHM = 'aes-256-gcm';

function seal(key: Buffer, plain: Buffer, aad: string) {
  const iv = randomBytes(12);
  const cipher = createCipheriv(ALGORITHM, key, iv);
  cipher.setAAD(Buffer.from(aad));
  const ct = Buffer.concat([cipher.update(plain), cipher.final()]);
  return { iv, ct, tag: cipher.getAuthTag() };
}

function open(key: Buffer, iv: Buffer, ct: Buffer, tag: Buffer, aad: string): Buffer {
  const decipher = createDecipheriv(ALGORITHM, key, iv);
  decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(ct), decipher.final()]);
}

export class SubjectErased extends Error {
  readonly code = 'subject_erased';
  constructor(readonly subject: string) {
    super(`The personal data of ${subject} was erased: nothing personal can be recorded for it`);
  }
}

/**
 * A sealed value this vault cannot open: its key id is unknown, its key does not unwrap with this
 * master key, or the value does not authenticate (changed, or not at the place it was sealed for).
 * Reading stops at the event that holds it; it never reads as "Erased".
 */
export class UnreadableSealedValue extends Error {
  readonly code = 'unreadable_sealed_value';
  constructor(
    readonly kid: string,
    readonly aad: string,
    reason: string,
  ) {
    super(`the sealed ${aad} (key ${kid}) cannot be opened: ${reason}`);
  }
}

export type PersonalDataVaultOptions = {
  /** 32 bytes: wraps every data key (DATA_DIR/personal-data-key). */
  masterKey: Buffer;
  /** How long accounting copies are kept from their date (RETENTION_YEARS; 6 by default). */
  retentionYears?: number;
  /**
   * Told of each subject whose key is shredded, before its key goes (an erasure) or just after (the
   * retention job): a record kept outside the database, which a restored backup applies again
   * (docs/backups.md). A failure stops the shredding, which its caller retries.
   */
  onShredded?: (subjects: string[], at: Date) => Promise<void> | void;
};

/** A data key as `pii.subject_keys` stores it: wrapped by the master key (iv | tag | ciphertext), bound to its id. */
export function wrapDataKey(masterKey: Buffer, key: Buffer, kid: string): Buffer {
  const { iv, ct, tag } = seal(masterKey, key, `key:${kid}`);
  return Buffer.concat([iv, tag, ct]);
}

/** The data key `wrapDataKey` wrapped; throws when this master key did not wrap it. */
export function unwrapDataKey(masterKey: Buffer, wrapped: Buffer, kid: string): Buffer {
  return open(masterKey, wrapped.subarray(0, 12), wrapped.subarray(28), wrapped.subarray(12, 28), `key:${kid}`);
}

/** `date` (YYYY-MM-DD) plus whole years; 29 February becomes 28 February in a common year. */
export function addYears(date: string, years: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const day = Math.min(d, new Date(Date.UTC(y + years, m, 0)).getUTCDate());
  return `${String(y + years).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/**
 * The data keys, one per data subject, outside the event log (their tables: migrations/personal-data).
 * Each key is stored wrapped (AES-256-GCM) by the master key kept in DATA_DIR, so a copy of the
 * database alone decrypts nothing. Erasing a subject deletes its key bytes and keeps the row (`shredded_at`): the
 * subject's personal fields can never be read again, from any copy of the log.
 *
 * Accounting keys (`kind = 'accounting'`) hold what the law makes the agency keep after an
 * erasure (billing details of issued invoices) until `retain_until`, when the daily job shreds them.
 *
 * A key id found in a sealed value but in neither table is an error, never "Erased": a key table
 * from another database or a partial copy must stop the readers that need it (and be reported),
 * not pass the subject off as erased, which folds would then record again for good.
 */
export class PersonalDataVault {
  private readonly byKid = new Map<string, Key>();
  private readonly bySubject = new Map<string, Key>();
  private readonly retained = new Map<string, string>();
  /** Bumped whenever a cached key is dropped, so a read that raced with an erasure is not cached. */
  private generation = 0;
  private readonly masterKey: Buffer;
  private readonly onShredded: PersonalDataVaultOptions['onShredded'];
  readonly retentionYears: number;

  constructor(
    private readonly pool: pg.Pool,
    options: PersonalDataVaultOptions,
  ) {
    if (options.masterKey.length !== 32) throw new Error('The personal-data master key must be 32 bytes');
    this.masterKey = options.masterKey;
    this.retentionYears = options.retentionYears ?? 6;
    this.onShredded = options.onShredded;
  }

  static async open(pool: pg.Pool, options: PersonalDataVaultOptions) {
    await migrate(pool, PERSONAL_DATA_MIGRATIONS);
    return new PersonalDataVault(pool, options);
  }

  private remember(row: { subject_id: string; key_id: string; key: Buffer | null; retired?: boolean }): Key {
    const key: Key = { kid: row.key_id, subject: row.subject_id, key: null };
    try {
      if (row.key) key.key = this.unwrap(row.key, row.key_id);
    } catch (error) {
      key.broken = `its key does not unwrap with this master key (${error instanceof Error ? error.message : error})`;
    }
    this.byKid.set(key.kid, key);
    // A retired id is not its subject's key any more: only what was sealed under it looks it up.
    if (!row.retired) this.bySubject.set(key.subject, key);
    return key;
  }

  /**
   * A keyed one-way digest of `value`, for `purpose`: the same in every process with this master
   * key, so instances can agree on a value without storing it, and of no use to whoever holds the
   * database alone (the key is not in it).
   */
  digest(purpose: string, value: string): string {
    const key = Buffer.from(hkdfSync('sha256', this.masterKey, Buffer.alloc(0), `digest:${purpose}`, 32));
    return createHmac('sha256', key).update(value).digest('base64url');
  }

  private wrap(key: Buffer, kid: string): Buffer {
    return wrapDataKey(this.masterKey, key, kid);
  }

  private unwrap(wrapped: Buffer, kid: string): Buffer {
    return unwrapDataKey(this.masterKey, wrapped, kid);
  }

  /**
   * The subject's key, made on first use; refused once the subject is erased.
   *
   * A subject with no row gets a fresh key even if the log holds values sealed for it under a key
   * id this table has lost (a partial copy): the vault cannot tell that apart from a new subject
   * without reading the log. That cannot turn into "Erased" recorded for good, because those
   * values never read as "Erased": a fold that meets one fails (the command is refused), and every
   * projection and reactor that needs the event stops at it, reported in health.
   */
  private async keyFor(subject: string, kind: 'subject' | 'accounting' = 'subject'): Promise<Key & { key: Buffer }> {
    let key = this.bySubject.get(subject);
    if (!key) {
      const kid = randomUUID();
      await this.pool.query(
        `insert into pii.subject_keys (subject_id, key_id, key, kind) values ($1, $2, $3, $4)
         on conflict (subject_id) do nothing`,
        [subject, kid, this.wrap(randomBytes(32), kid), kind],
      );
      const { rows } = await this.pool.query(
        'select subject_id, key_id, key from pii.subject_keys where subject_id = $1',
        [subject],
      );
      key = this.remember(rows[0]);
    }
    if (key.broken) throw new Error(`The data key of ${subject} cannot be used: ${key.broken}`);
    if (!key.key) throw new SubjectErased(subject);
    return key as Key & { key: Buffer };
  }

  /** A value sealed under its subject's key; `aad` binds it to where it sits (the field's path). */
  async encrypt(subject: string, value: unknown, aad: string): Promise<Sealed> {
    const { kid, key } = await this.keyFor(subject);
    const { iv, ct, tag } = seal(key, Buffer.from(JSON.stringify(value)), `${kid}:${aad}`);
    return { $enc: 'v1', kid, iv: iv.toString('base64'), ct: ct.toString('base64'), tag: tag.toString('base64') };
  }

  /** Loads the keys of these ids in one query (a batch of events is decrypted at once). */
  async preload(kids: Iterable<string>): Promise<void> {
    const missing = [...new Set(kids)].filter((kid) => !this.byKid.has(kid));
    if (missing.length === 0) return;
    for (;;) {
      const generation = this.generation;
      const { rows } = await this.pool.query(
        `select subject_id, key_id, key, false as retired from pii.subject_keys where key_id = any($1)
         union all
         select subject_id, key_id, null, true from pii.retired_keys where key_id = any($1)`,
        [missing],
      );
      // An erasure announced while this read was under way: read again rather than cache a stale key.
      if (generation !== this.generation) continue;
      for (const row of rows) this.remember(row);
      return;
    }
  }

  /**
   * The clear value, or `erased` when its subject's key was destroyed. Throws
   * `UnreadableSealedValue` when it cannot be opened for any other reason (see there).
   */
  async decrypt(sealed: Sealed, aad: string, erased: (subject: string) => unknown): Promise<unknown> {
    await this.preload([sealed.kid]);
    const key = this.byKid.get(sealed.kid);
    if (!key) throw new UnreadableSealedValue(sealed.kid, aad, 'no such key id in pii.subject_keys');
    if (key.broken) throw new UnreadableSealedValue(sealed.kid, aad, key.broken);
    if (!key.key) return erased(key.subject);
    try {
      const plain = open(
        key.key,
        Buffer.from(sealed.iv, 'base64'),
        Buffer.from(sealed.ct, 'base64'),
        Buffer.from(sealed.tag, 'base64'),
        `${sealed.kid}:${aad}`,
      );
      return JSON.parse(plain.toString('utf8'));
    } catch (error) {
      throw new UnreadableSealedValue(sealed.kid, aad, error instanceof Error ? error.message : String(error));
    }
  }

  /** Whether the subject's personal data was erased. */
  async isErased(subject: string): Promise<boolean> {
    const { rows } = await this.pool.query('select shredded_at from pii.subject_keys where subject_id = $1', [subject]);
    return rows[0]?.shredded_at != null;
  }

  /**
   * Crypto-shredding: the key bytes are deleted, the row stays (who, since when). A subject with
   * no key yet gets a shredded row, so nothing personal can be recorded for it afterwards.
   */
  async shred(subject: string, at: Date = new Date()): Promise<void> {
    await this.onShredded?.([subject], at);
    await this.pool.query(
      `insert into pii.subject_keys (subject_id, key_id, key, shredded_at) values ($1, $2, null, $3)
       on conflict (subject_id) do update set key = null, shredded_at = coalesce(pii.subject_keys.shredded_at, $3)`,
      [subject, randomUUID(), at],
    );
    this.forget(subject);
    await this.announce([subject]);
  }

  /**
   * Grows whenever a key leaves the cache (an erasure here or announced by another process, or
   * every key when the announcements may have been missed): a value opened before may since have
   * been erased, and a copy of it held open must be opened again.
   */
  get erasures(): number {
    return this.generation;
  }

  /** Drops a cached key, so the next use reads the table again. */
  forget(subject: string) {
    this.generation += 1;
    const key = this.bySubject.get(subject);
    if (key) this.byKid.delete(key.kid);
    this.bySubject.delete(subject);
  }

  /** Drops every cached key (the erasure announcements may have been missed). */
  forgetAll() {
    this.generation += 1;
    this.byKid.clear();
    this.bySubject.clear();
  }

  /** Tells every process sharing the database that these subjects' keys are gone. */
  private async announce(subjects: string[]) {
    for (const subject of subjects) await this.pool.query('select pg_notify($1, $2)', [SHREDDED_CHANNEL, subject]);
  }

  /**
   * Follows erasures made by other processes sharing the database (several instances, a
   * separate retention job): each announced subject's key leaves this cache at once. If the
   * listening connection fails, every cached key is dropped and it listens again, so a missed
   * announcement never leaves an erased key usable here. Answers the function that stops it.
   */
  async followErasures(retryMs = 1000) {
    let stopped = false;
    let client: pg.PoolClient | undefined;
    let timer: NodeJS.Timeout | undefined;
    const listen = async (): Promise<void> => {
      try {
        client = await this.pool.connect();
        client.on('notification', (message) => {
          if (message.channel === SHREDDED_CHANNEL && message.payload) this.forget(message.payload);
        });
        client.on('error', () => retry());
        await client.query(`listen ${SHREDDED_CHANNEL}`);
        // Anything shredded before the LISTEN took effect is not in the cache after this.
        this.forgetAll();
        if (stopped) await close();
      } catch {
        retry();
      }
    };
    const retry = () => {
      this.forgetAll();
      const broken = client;
      client = undefined;
      broken?.release(true);
      if (!stopped && !timer) {
        timer = setTimeout(() => {
          timer = undefined;
          void listen();
        }, retryMs);
        timer.unref();
      }
    };
    const close = async () => {
      const open = client;
      client = undefined;
      if (!open) return;
      await open.query(`unlisten ${SHREDDED_CHANNEL}`).catch(() => {});
      open.release();
    };
    await listen();
    return async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      await close();
    };
  }

  /**
   * An accounting key for `subject`, kept until `retainUntil` (a `YYYY-MM-DD` date) even when
   * `owner` (the family or booking it bills) is erased; a later date extends it, never shortens it.
   */
  async retain(subject: string, retainUntil: string, owner: string): Promise<void> {
    if (this.retained.get(subject) === retainUntil) return;
    await this.keyFor(subject, 'accounting');
    await this.pool.query(
      `update pii.subject_keys set kind = 'accounting', retain_until = greatest(retain_until, $2::date), owner = $3
        where subject_id = $1`,
      [subject, retainUntil, owner],
    );
    this.retained.set(subject, retainUntil);
  }

  /**
   * The retention job: the accounting keys of erased owners whose period has ended are shredded
   * (a family that was never erased keeps its billing key, however old its first invoice).
   * Answers their subjects.
   */
  async shredExpiredAccountingKeys(now: Date): Promise<string[]> {
    const { rows } = await this.pool.query<{ subject_id: string }>(
      `update pii.subject_keys a set key = null, shredded_at = $1
        where a.kind = 'accounting' and a.key is not null and a.retain_until < ($1::timestamptz)::date
          and exists (select 1 from pii.subject_keys o where o.subject_id = a.owner and o.key is null)
        returning a.subject_id`,
      [now],
    );
    for (const row of rows) this.forget(row.subject_id);
    // After the fact: a lost record costs nothing lasting, a restore's first retention run shreds it again.
    if (rows.length > 0)
      await this.onShredded?.(
        rows.map((row) => row.subject_id),
        now,
      );
    await this.announce(rows.map((row) => row.subject_id));
    return rows.map((row) => row.subject_id);
  }

  /**
   * Accounting keys an earlier release shredded while their owner was never erased (its retention
   * job did not look at the owner): each gets a new key, so the owner is billed as ever; what was
   * sealed under the old one reads "Erased" for good. Answers the owners, for the start-up report.
   */
  async restoreWronglyShreddedAccountingKeys(): Promise<string[]> {
    const { rows } = await this.pool.query<{ subject_id: string; owner: string }>(
      `select a.subject_id, a.owner from pii.subject_keys a
        where a.kind = 'accounting' and a.key is null and a.owner is not null
          and not exists (select 1 from pii.subject_keys o where o.subject_id = a.owner and o.key is null)
        order by a.owner`,
    );
    for (const { subject_id: subject } of rows) {
      const kid = randomUUID();
      // The old id is kept as retired in the same statement: what it sealed reads "Erased", not unknown.
      await this.pool.query(
        `with retired as (
           insert into pii.retired_keys (key_id, subject_id)
           select key_id, subject_id from pii.subject_keys where subject_id = $1 and key is null
           on conflict (key_id) do nothing)
         update pii.subject_keys set key_id = $2, key = $3, shredded_at = null where subject_id = $1 and key is null`,
        [subject, kid, this.wrap(randomBytes(32), kid)],
      );
      this.forget(subject);
      this.retained.delete(subject);
    }
    await this.announce(rows.map((row) => row.subject_id));
    return rows.map((row) => row.owner);
  }

  /** Until when the accounting keys of these subjects are kept (the erasure screen says so). */
  async retainedUntil(subjects: string[]): Promise<{ subject: string; retainUntil: string }[]> {
    const { rows } = await this.pool.query<{ subject_id: string; retain_until: string }>(
      `select subject_id, to_char(retain_until, 'YYYY-MM-DD') as retain_until from pii.subject_keys
        where subject_id = any($1) and kind = 'accounting' and key is not null order by retain_until`,
      [subjects],
    );
    return rows.map((row) => ({ subject: row.subject_id, retainUntil: row.retain_until }));
  }
}
