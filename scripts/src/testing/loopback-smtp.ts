import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export type Delivered = { to: string[]; raw: string };

/** Undoes quoted-printable soft breaks and escapes, enough to read a message's links and text. */
export const decodeQuotedPrintable = (raw: string) =>
  raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex) => String.fromCharCode(Number.parseInt(hex, 16)));

/**
 * A real SMTP server on loopback that keeps every message it is given, for tests of the e-mails;
 * `decoded` keeps each as `decodeQuotedPrintable` reads it.
 */
export async function startLoopbackSmtp({ decoded = false } = {}) {
  const inbox: Delivered[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        inbox.push({
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: decoded ? decodeQuotedPrintable(raw) : raw,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const { port } = smtp.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    inbox,
    close: () => new Promise<void>((resolve) => smtp.close(() => resolve())),
  };
}

/** The PDF attached to a raw message (base64 in its own MIME part). */
export function attachedPdf(raw: string): Buffer {
  const part = /Content-Type: application\/pdf[\s\S]*?\r?\n\r?\n([A-Za-z0-9+/=\r\n]+)/.exec(raw);
  if (!part?.[1]) throw new Error('no PDF attached');
  return Buffer.from(part[1].replace(/\s/g, ''), 'base64');
}
