import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { BackupRefused, passphraseFrom } from './backup-format';
import { prepareRestore, restoreBackup } from './backup-restore';
import { configFromEnvironment } from './config';
import { openDatabase } from './database';
import { erasedSubjectsFile, readErasedSubjects } from './erased-subjects';
import { personalDataKeyFor } from './personal-data';

// `npm run restore -- FILE [--keys-file K] [--passphrase-file P] [--erased-subjects R]…`: the
// backup into an empty DATA_DIR (its embedded PostgreSQL is made there) or the empty database at
// DATABASE_URL, then `npm start`. The file is checked whole and its keys opened before anything is
// made; a non-empty target is refused. The erasures recorded since (DATA_DIR/erased-subjects or
// ERASED_SUBJECTS_FILE, and each --erased-subjects) are applied again: docs/backups.md.
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    'keys-file': { type: 'string' },
    'passphrase-file': { type: 'string' },
    'erased-subjects': { type: 'string', multiple: true },
  },
});
const file = positionals[0];
if (!file || positionals.length > 1) {
  console.error(
    'Usage: npm run restore -- FILE [--keys-file FILE.keys] [--passphrase-file FILE] [--erased-subjects FILE]…',
  );
  process.exit(2);
}
let exitCode = 0;
try {
  const passphraseFile = values['passphrase-file'];
  const passphrase = passphraseFile ? passphraseFrom(readFileSync(passphraseFile), passphraseFile) : undefined;
  const prepared = await prepareRestore({
    file: resolve(file),
    keysFile: values['keys-file'] && resolve(values['keys-file']),
    passphrase,
  });
  const records = [...(values['erased-subjects'] ?? [])].map((record) => resolve(record));
  for (const record of records) readFileSync(record); // a record named but missing is refused, not taken as none
  const config = configFromEnvironment();
  records.push(erasedSubjectsFile(config.dataDir));
  const erased = [...new Set(records)].flatMap((record) => readErasedSubjects(record));
  const database = await openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
  try {
    const outcome = await restoreBackup(prepared, {
      databaseUrl: database.url,
      masterKey: personalDataKeyFor(config.dataDir),
      erased,
    });
    console.log(
      `Restored ${outcome.events} events and ${outcome.rows} rows of ${outcome.tables} tables from ${file} ` +
        `(made ${prepared.header.createdAt}).`,
    );
    if (outcome.erasedAgain.length > 0) {
      console.log(
        `Erased again (erased after this backup was made): ${outcome.erasedAgain.join(', ')}. Their personal data ` +
          'reads "Erased"; erase each once more on its page to record the erasure and clear its login (docs/backups.md).',
      );
    }
    console.log('The read models are built at the first start: npm start');
  } finally {
    await database.stop();
  }
} catch (error) {
  console.error(error instanceof BackupRefused ? error.message : `The restore failed: ${String(error)}`);
  exitCode = 1;
}
process.exit(exitCode);
