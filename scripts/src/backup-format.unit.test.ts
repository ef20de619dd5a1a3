import { describe, expect, it } from 'vitest';
import { openKeys, passphraseFrom, sealKeys } from './backup-format';

const keys = { masterKey: 'bWFzdGVy', tables: [] };
/** Each seal and open runs scrypt (N=2^15): about a second each on a busy machine. */
const SCRYPT_TEST_MS = 60_000;

describe("a backup's passphrase (docs/backups.md)", () => {
  it(
    'with letters beyond ASCII opens what it sealed, whichever way the accents were typed',
    () => {
      const composed = 'mot de passe: éléphant ß 象 🐘';
      const decomposed = composed.normalize('NFD');
      expect(decomposed).not.toBe(composed);
      expect(openKeys(sealKeys(keys, decomposed), composed)).toEqual(keys);
      const fromFile = passphraseFrom(Buffer.from(`\uFEFF${decomposed}\r\n`), 'P');
      expect(openKeys(sealKeys(keys, composed), fromFile)).toEqual(keys);
      expect(() => openKeys(sealKeys(keys, composed), 'mot de passe: elephant ß 象 🐘')).toThrow(/does not open/);
    },
    SCRYPT_TEST_MS,
  );

  it('from a file not in UTF-8 is refused, not read as other characters that another passphrase shares', () => {
    expect(() => passphraseFrom(Buffer.from('passwörd-passwörd', 'latin1'), 'P')).toThrow(/P is not UTF-8 text/);
    // Twelve characters, counted as a person counts them (an emoji is one).
    expect(() => passphraseFrom(Buffer.from('🐘🐘🐘🐘🐘🐘'), 'P')).toThrow(/shorter than 12/);
    expect(passphraseFrom(Buffer.from('🐘🐘🐘🐘🐘🐘🐘🐘🐘🐘🐘🐘\n'), 'P')).toBe('🐘'.repeat(12));
  });
});
