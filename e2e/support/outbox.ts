import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, inject } from 'vitest';

/** Undoes quoted-printable soft breaks and escapes, enough to read links and text. */
const decode = (raw: string) =>
  raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex) => String.fromCharCode(Number.parseInt(hex, 16)));

/** The newest path like /activate/{code} (or /reset/…, /book/confirm/…) in a message to `to`, from DATA_DIR/outbox (no SMTP_URL set). */
export async function linkFromOutbox(
  to: string,
  kind: 'activate' | 'reset' | 'book/confirm' | 'family/sign-in',
  seen: Set<string>,
): Promise<string> {
  const outbox = join(inject('dataDir'), 'outbox');
  let path = '';
  await expect
    .poll(
      () => {
        let files: string[] = [];
        try {
          files = readdirSync(outbox).sort();
        } catch {
          return '';
        }
        for (const file of files.reverse()) {
          if (seen.has(file)) continue;
          const text = decode(readFileSync(join(outbox, file), 'utf8'));
          const match = new RegExp(`https?://[^/\\s]+(/${kind}/[A-Za-z0-9_-]+)`).exec(text);
          if (text.includes(`To: ${to}`) && match) {
            seen.add(file);
            path = match[1]!;
            return path;
          }
        }
        return '';
      },
      { timeout: 10_000 },
    )
    .not.toBe('');
  return path;
}
