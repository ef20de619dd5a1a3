import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLoopbackSmtp } from '@agency/scripts/testing/loopback-smtp';
import { afterAll, describe, expect, it } from 'vitest';
import { createMailer, type MailMessage } from './mailer';

const message: MailMessage = {
  to: 'amy@example.com',
  subject: 'Reset your password',
  text: 'Open https://agency.example.test/reset/secret-token',
  html: '<a href="https://agency.example.test/reset/secret-token">reset</a>',
  links: ['https://agency.example.test/reset/secret-token'],
};

describe('mailer', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agency-mailer-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('without SMTP writes each message to the outbox readable by its owner only (0600, folder 0700) and logs only its file', async () => {
    const lines: string[] = [];
    const outboxDir = join(dir, 'outbox');
    await createMailer({ outboxDir, from: 'agency@example.com', log: (line) => lines.push(line) }).send(message);
    const [file] = readdirSync(outboxDir);
    expect(statSync(outboxDir).mode & 0o777).toBe(0o700);
    expect(statSync(join(outboxDir, file!)).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(outboxDir, file!), 'utf8')).toContain('secret-token');
    expect(lines).toEqual([`Mail written to ${join(outboxDir, file!)}`]);
    const logged = lines.join('\n');
    for (const secret of ['secret-token', 'amy@example.com', 'Reset your password'])
      expect(logged).not.toContain(secret);
  });

  it('without SMTP and with printLinks (MAIL_PRINT_LINKS=1) also prints the recipient, the subject and the links', async () => {
    const lines: string[] = [];
    const outboxDir = join(dir, 'printed-outbox');
    await createMailer({
      outboxDir,
      from: 'agency@example.com',
      log: (line) => lines.push(line),
      printLinks: true,
    }).send(message);
    const logged = lines.join('\n');
    expect(logged).toContain(readdirSync(outboxDir)[0]);
    expect(logged).toContain('amy@example.com');
    expect(logged).toContain('Reset your password');
    expect(logged).toContain('link: https://agency.example.test/reset/secret-token');
  });

  it('with SMTP sends the message and never prints its links', async () => {
    const smtp = await startLoopbackSmtp();
    try {
      const lines: string[] = [];
      const outboxDir = join(dir, 'unused-outbox');
      await createMailer({
        smtpUrl: smtp.url,
        outboxDir,
        from: 'agency@example.com',
        log: (line) => lines.push(line),
      }).send(message);
      expect(smtp.inbox.map((delivered) => delivered.to)).toEqual([['amy@example.com']]);
      expect(lines.join('\n')).not.toContain('secret-token');
    } finally {
      await smtp.close();
    }
  });
});
