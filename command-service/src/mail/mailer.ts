import { chmodSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import nodemailer from 'nodemailer';

export type MailMessage = {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** The message's links: printed to the log only in outbox mode with `printLinks` (MAIL_PRINT_LINKS=1). */
  links: string[];
  /** Files sent with it (a family invoice's PDF). */
  attachments?: { filename: string; content: Buffer; contentType: string }[];
  /**
   * Its Message-ID, `<…@…>`: the mail reactor derives it from the event that caused the message,
   * so a message sent twice (a crash between the send and its record) is one message to the
   * receiving side. Made up by nodemailer when absent.
   */
  messageId?: string;
};

export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

export type MailerOptions = {
  /** smtp://host:port (or smtps://…); when absent, messages are written to `outboxDir`. */
  smtpUrl?: string;
  outboxDir: string;
  from: string;
  log: (line: string) => void;
  /**
   * In outbox mode, also print each message's recipient, subject and links (MAIL_PRINT_LINKS=1),
   * for a bare machine whose operator reads activation links off the terminal. Off by default:
   * the links are live credentials and the log is read more widely than the outbox folder and
   * kept beyond the reach of an erasure (docs/personal-data.md).
   */
  printLinks?: boolean;
};

/**
 * Nodemailer over SMTP when `SMTP_URL` is set. Otherwise each message is written as an .eml file
 * to the outbox folder, so a fresh install works without a mail server, and only the file's name
 * is logged (no recipient, subject or link unless `printLinks`). The outbox holds live activation
 * and reset links: the folder is 0700 and each file 0600.
 */
export function createMailer(options: MailerOptions): Mailer {
  const envelope = (message: MailMessage) => ({
    from: options.from,
    to: message.to,
    subject: message.subject,
    text: message.text,
    html: message.html,
    attachments: message.attachments ?? [],
    messageId: message.messageId,
  });
  if (options.smtpUrl) {
    const transport = nodemailer.createTransport(options.smtpUrl);
    return {
      async send(message) {
        await transport.sendMail(envelope(message));
      },
    };
  }
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  let sequence = 0;
  return {
    async send(message) {
      const info = await transport.sendMail(envelope(message));
      mkdirSync(options.outboxDir, { recursive: true, mode: 0o700 });
      if ((statSync(options.outboxDir).mode & 0o777) !== 0o700) chmodSync(options.outboxDir, 0o700);
      sequence += 1;
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      const file = join(options.outboxDir, `${stamp}-${String(sequence).padStart(4, '0')}.eml`);
      writeFileSync(file, info.message as Buffer, { mode: 0o600 });
      if (!options.printLinks) {
        options.log(`Mail written to ${file}`);
        return;
      }
      options.log(`Mail to ${message.to} "${message.subject}" written to ${file}`);
      for (const link of message.links) options.log(`  link: ${link}`);
    },
  };
}
