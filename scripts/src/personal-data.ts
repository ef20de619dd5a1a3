import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { EventStore } from '@agency/platform';
import { PersonalDataEventStore, PersonalDataVault } from '@agency/platform/personal-data';
import pg from 'pg';
import { erasedSubjectsFile, recordErasedSubjects } from './erased-subjects';
import { secretFile } from './private-files';

/**
 * The master key that wraps every data subject's key: PERSONAL_DATA_KEY (base64, 32 bytes; the
 * same for every instance sharing a database), or made once in DATA_DIR (0600) like the JWT secret.
 */
export function personalDataKeyFor(dataDir: string, env: NodeJS.ProcessEnv = process.env): Buffer {
  const text =
    env.PERSONAL_DATA_KEY || secretFile(join(dataDir, 'personal-data-key'), () => randomBytes(32).toString('base64'));
  const key = Buffer.from(text, 'base64');
  if (key.length !== 32) throw new Error('PERSONAL_DATA_KEY must be 32 bytes, base64-encoded');
  return key;
}

export type PersonalData = {
  vault: PersonalDataVault;
  /** The store with personal fields encrypted as they are appended and decrypted as they are read. */
  protect: (store: EventStore) => EventStore;
  close: () => Promise<void>;
};

/** The key table (schema `pii`, beside the read models) and the store decorator every process uses. */
export async function openPersonalData(
  dataDir: string,
  databaseUrl: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<PersonalData> {
  const retentionYears = Number(env.RETENTION_YEARS || 6);
  if (!Number.isInteger(retentionYears) || retentionYears < 1)
    throw new Error('RETENTION_YEARS must be a whole number of years');
  // One connection of these listens for erasures made by other instances sharing the database.
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
  pool.on('error', () => {});
  const journal = erasedSubjectsFile(dataDir, env);
  const vault = await PersonalDataVault.open(pool, {
    masterKey: personalDataKeyFor(dataDir, env),
    retentionYears,
    onShredded: (subjects, at) => recordErasedSubjects(journal, subjects, at),
  });
  const stopFollowing = await vault.followErasures();
  return {
    vault,
    protect: (store) => new PersonalDataEventStore(store, vault),
    close: async () => {
      await stopFollowing();
      await pool.end();
    },
  };
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The retention job: accounting keys whose period has ended are shredded now and then every
 * 24 hours. Answers the function that stops it.
 */
export function startRetentionJob(vault: PersonalDataVault, log: (line: string) => void, clock = () => new Date()) {
  const restored = vault
    .restoreWronglyShreddedAccountingKeys()
    .then((owners) => {
      if (owners.length === 0) return;
      log(
        `An earlier release shredded the billing keys of ${owners.length} famil${owners.length === 1 ? 'y' : 'ies'} ` +
          `never erased (${owners.join(', ')}): they have new keys and are invoiced as ever; the billing details of ` +
          'their invoices issued before read "Erased" (see README, "Billing keys shredded by an earlier release").',
      );
    })
    .catch((error) => log(`Checking the billing keys failed: ${error}`));
  const run = () =>
    restored
      .then(() => vault.shredExpiredAccountingKeys(clock()))
      .then((subjects) => {
        if (subjects.length > 0) log(`Retention ended: shredded ${subjects.length} accounting key(s)`);
      })
      .catch((error) => log(`The retention job failed: ${error}`));
  void run();
  const timer = setInterval(run, DAY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
