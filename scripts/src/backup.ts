import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { BackupRefused, passphraseFrom } from './backup-format';
import { writeBackup } from './backup-write';
import { configFromEnvironment } from './config';
import { openDatabase } from './database';
import { personalDataKeyFor } from './personal-data';

// `npm run backup -- FILE [--keys included|apart] [--keys-file K] [--passphrase-file P]`, beside a
// running `npm start` or on its own: one consistent copy of the store and everything the product
// needs to run again, in FILE (0600). The personal-data keys go in it sealed under the passphrase
// (included, the default) or into a file of their own (apart: K, or FILE.keys; sealed when a
// passphrase is given). What each choice means for erasure: docs/backups.md.
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    keys: { type: 'string', default: 'included' },
    'keys-file': { type: 'string' },
    'passphrase-file': { type: 'string' },
  },
});
const file = positionals[0];
if (!file || positionals.length > 1 || (values.keys !== 'included' && values.keys !== 'apart')) {
  console.error(
    'Usage: npm run backup -- FILE [--keys included|apart] [--keys-file FILE.keys] [--passphrase-file FILE]',
  );
  process.exit(2);
}
let exitCode = 0;
try {
  const passphraseFile = values['passphrase-file'];
  let passphrase: string | undefined;
  if (passphraseFile) {
    try {
      passphrase = passphraseFrom(readFileSync(passphraseFile), passphraseFile);
    } catch (error) {
      if (error instanceof BackupRefused) throw error;
      throw new BackupRefused(`Cannot read the passphrase file ${passphraseFile}: ${(error as Error).message}`);
    }
  }
  if (values.keys === 'included' && !passphrase) {
    throw new BackupRefused(
      '--keys included seals the personal-data keys under a passphrase: give --passphrase-file (or choose --keys apart).',
    );
  }
  // Checked before the configuration, which would make DATA_DIR and its secrets where none was.
  const dataDir = resolve(process.env.DATA_DIR ?? '.data');
  if (!process.env.DATABASE_URL && !existsSync(join(dataDir, 'pg', 'PG_VERSION'))) {
    throw new BackupRefused(`${dataDir} holds no database: there is nothing to back up (is DATA_DIR right?).`);
  }
  const config = configFromEnvironment();
  if (config.eventStore?.kind === 'esdb') {
    throw new BackupRefused(
      'EVENT_STORE=esdb: the events are in KurrentDB, which this backup does not copy (docs/backups.md).',
    );
  }
  const database = await openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
  try {
    const started = Date.now();
    const header = await writeBackup({
      databaseUrl: database.url,
      file: resolve(file),
      keys: values.keys,
      keysFile: values['keys-file'] && resolve(values['keys-file']),
      passphrase,
      masterKey: personalDataKeyFor(config.dataDir),
    });
    const rows = header.tables.reduce((sum, table) => sum + table.rows, 0);
    console.log(
      `Backed up ${header.events} events and ${rows} rows of ${header.tables.length} tables into ${file} ` +
        `(${header.body.bytes} bytes compressed, ${((Date.now() - started) / 1000).toFixed(1)} s).`,
    );
    console.log(
      header.keys === 'included'
        ? 'The personal-data keys are in it, sealed under the passphrase: keep the passphrase apart from the file.'
        : `The personal-data keys are in ${values['keys-file'] ?? `${file}.keys`}${passphrase ? ', sealed under the passphrase' : ''}: keep that file apart from the backups.`,
    );
  } finally {
    await database.stop();
  }
} catch (error) {
  console.error(error instanceof BackupRefused ? error.message : `The backup failed: ${String(error)}`);
  exitCode = 1;
}
process.exit(exitCode);
