import { existsSync, readdirSync, readFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { ERASED, isSingleEmailAddress } from '@agency/contracts';
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

/** The To: header of a stored .eml file, folded lines joined. */
function recipientOf(eml: string): string {
  const head = eml.split(/\r?\n\r?\n/)[0] ?? '';
  const match = /^To:(.*(?:\r?\n[ \t].*)*)/im.exec(head);
  return (match?.[1] ?? '').replace(/\s+/g, ' ').toLowerCase();
}

/**
 * An erased subject's mail leaves the outbox folder: every .eml file addressed to one of these
 * addresses is deleted. Answers how many. (Mail handed to an SMTP server is beyond reach.)
 */
export function forgetOutboxMail(outboxDir: string, addresses: string[]): number {
  const wanted = addresses.map((address) => address.trim().toLowerCase()).filter((address) => address.includes('@'));
  if (wanted.length === 0 || !existsSync(outboxDir)) return 0;
  let deleted = 0;
  for (const name of readdirSync(outboxDir).filter((file) => file.endsWith('.eml'))) {
    const file = join(outboxDir, name);
    const to = recipientOf(readFileSync(file, 'utf8'));
    if (wanted.some((address) => to.includes(address))) {
      unlinkSync(file);
      deleted += 1;
    }
  }
  return deleted;
}
