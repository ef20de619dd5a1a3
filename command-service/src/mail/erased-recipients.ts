import { closeSync, existsSync, openSync, readdirSync, readSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { ERASED, isSingleEmailAddress } from '@agency/contracts';
import { SHREDDED_CHANNEL } from '@agency/platform/personal-data';
import pg from 'pg';
import type { Mailer } from './mailer';

/** No mail ever goes to an erased subject (whose address reads "Erased") nor to anything but one address. */
export class RefusedRecipient extends Error {
  readonly code = 'refused_recipient';
  constructor() {
    super('Mail is never sent to an erased subject, nor to anything but one e-mail address');
  }
}

/** The mailer every route uses: it refuses a recipient that is not one e-mail address (an erased one reads "Erased"). */
export function refuseErasedRecipients(mailer: Mailer): Mailer {
  return {
    send(message) {
      if (message.to === ERASED || !isSingleEmailAddress(message.to)) return Promise.reject(new RefusedRecipient());
      return mailer.send(message);
    },
  };
}

/** The head of a stored .eml file (a message's headers are far shorter than this). */
function headOf(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(64 * 1024);
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    return (
      buffer
        .subarray(0, read)
        .toString('utf8')
        .split(/\r?\n\r?\n/)[0] ?? ''
    );
  } finally {
    closeSync(fd);
  }
}

/** The addresses in the To: header of a stored .eml file, folded lines joined, in lower case. */
function recipientsOf(file: string): string[] {
  const match = /^To:(.*(?:\r?\n[ \t].*)*)/im.exec(headOf(file));
  return (match?.[1] ?? '').toLowerCase().match(/[^\s<>,;:"]+@[^\s<>,;:"]+/g) ?? [];
}

export type ErasedMailOptions = {
  db: pg.Pool;
  /** This instance's outbox folder (each instance may have its own). */
  outboxDir: string;
  /** A keyed digest of an address, the same on every instance sharing the database. */
  digest: (address: string) => string;
};

/**
 * An erased subject's mail leaves the outbox folder of every instance sharing the database, each
 * with its own folder: the erasure records the subject's addresses as digests and deletes this
 * instance's mail to them at once; every instance (`follow`) deletes its own on each erasure
 * announced (`pii_shredded`, sent once the key is destroyed) and when it starts, so one that was
 * stopped during an erasure catches up. (Mail handed to an SMTP server is beyond reach.)
 */
export class ErasedMail {
  /** The digests of the recipients of each file seen (a file never changes once written). */
  private readonly seen = new Map<string, string[]>();
  private sweeping: Promise<number> = Promise.resolve(0);

  private constructor(private readonly options: ErasedMailOptions) {}

  /** Its table, command.erased_mail_recipients, is the command side's (migrateCommandSide). */
  static async open(options: ErasedMailOptions): Promise<ErasedMail> {
    return new ErasedMail(options);
  }

  /**
   * Before the subject's key is destroyed (while its addresses can still be read, so an erasure cut
   * short is completed from its event): every instance is to forget mail to these addresses, and
   * this one does now.
   */
  async forget(addresses: string[]): Promise<void> {
    const digests = addresses
      .map((address) => address.trim().toLowerCase())
      .filter((address) => address.includes('@'))
      .map((address) => this.options.digest(address));
    if (digests.length > 0) {
      await this.options.db.query(
        'insert into command.erased_mail_recipients (digest) select unnest($1::text[]) on conflict do nothing',
        [digests],
      );
    }
    await this.sweep();
  }

  /** Deletes every file of this outbox addressed to a recorded address; one sweep at a time. */
  sweep(): Promise<number> {
    const next = this.sweeping.catch(() => 0).then(() => this.sweepOnce());
    this.sweeping = next;
    return next;
  }

  private async sweepOnce(): Promise<number> {
    const { outboxDir } = this.options;
    if (!existsSync(outboxDir)) return 0;
    const files = readdirSync(outboxDir).filter((name) => name.endsWith('.eml'));
    const present = new Set(files);
    for (const name of this.seen.keys()) if (!present.has(name)) this.seen.delete(name);
    for (const name of files) {
      if (!this.seen.has(name)) {
        this.seen.set(
          name,
          recipientsOf(join(outboxDir, name)).map((address) => this.options.digest(address)),
        );
      }
    }
    const all = [...new Set([...this.seen.values()].flat())];
    if (all.length === 0) return 0;
    const { rows } = await this.options.db.query<{ digest: string }>(
      'select digest from command.erased_mail_recipients where digest = any($1)',
      [all],
    );
    const erased = new Set(rows.map((row) => row.digest));
    let deleted = 0;
    for (const [name, digests] of this.seen) {
      if (!digests.some((digest) => erased.has(digest))) continue;
      try {
        unlinkSync(join(outboxDir, name));
        deleted += 1;
      } catch (error) {
        if ((error as { code?: string }).code !== 'ENOENT') throw error;
      }
      this.seen.delete(name);
    }
    return deleted;
  }

  /**
   * Sweeps this outbox now and on every erasure announced, on a connection of its own; if that
   * connection fails it connects again and sweeps (an announcement may have been missed).
   * Answers the function that stops it.
   */
  async follow(
    databaseUrl: string,
    log: (message: string, error: unknown) => void,
    retryMs = 1000,
  ): Promise<() => Promise<void>> {
    let stopped = false;
    let client: pg.Client | undefined;
    let timer: NodeJS.Timeout | undefined;
    const sweep = () => {
      this.sweep().catch((error: unknown) => log('sweeping the outbox of erased recipients failed', error));
    };
    const retry = () => {
      const broken = client;
      client = undefined;
      void broken?.end().catch(() => {});
      if (stopped || timer) return;
      timer = setTimeout(() => {
        timer = undefined;
        void listen();
      }, retryMs);
      timer.unref();
    };
    const listen = async () => {
      const connection = new pg.Client({ connectionString: databaseUrl });
      client = connection;
      connection.on('error', () => {
        if (client === connection) retry();
      });
      connection.on('notification', (message) => {
        if (message.channel === SHREDDED_CHANNEL) sweep();
      });
      try {
        await connection.connect();
        await connection.query(`listen ${SHREDDED_CHANNEL}`);
      } catch (error) {
        if (client === connection) {
          log('listening for erasures failed; trying again', error);
          retry();
        }
        return;
      }
      if (stopped) {
        await connection.end().catch(() => {});
        return;
      }
      // Whatever was erased before the LISTEN took effect (or while this instance was stopped).
      sweep();
    };
    await listen();
    return async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      const open = client;
      client = undefined;
      await open?.end().catch(() => {});
      await this.sweeping.catch(() => {});
    };
  }
}
