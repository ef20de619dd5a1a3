import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';

/** A folder only its owner may enter (0700): made so, or tightened if it was made wider. */
export function privateDir(dir: string) {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if ((statSync(dir).mode & 0o777) !== 0o700) chmodSync(dir, 0o700);
}

/** A file only its owner may read (0600) holding a secret made once; tightened if it was made wider. */
export function secretFile(file: string, make: () => string): string {
  if (!existsSync(file)) {
    try {
      writeFileSync(file, make(), { mode: 0o600, flag: 'wx' });
    } catch (error) {
      // Another process of ours (e.g. `npm run rebuild` beside `npm start`) made it first.
      if ((error as { code?: string }).code !== 'EEXIST') throw error;
    }
  }
  if ((statSync(file).mode & 0o777) !== 0o600) chmodSync(file, 0o600);
  return readFileSync(file, 'utf8').trim();
}
