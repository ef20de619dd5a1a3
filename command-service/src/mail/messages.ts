import type { MailMessage } from './mailer';

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

/** An absolute link under the product's public address. */
export const absoluteLink = (publicUrl: string, path: string) => `${publicUrl.replace(/\/+$/, '')}${path}`;

function layout(paragraphs: string[], link?: { href: string; label: string }) {
  const body = paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n');
  const button = link
    ? `<p><a href="${escapeHtml(link.href)}" style="display:inline-block;padding:10px 18px;background:#1d4ed8;color:#ffffff;text-decoration:none;border-radius:6px">${escapeHtml(link.label)}</a></p>
<p style="color:#52606d;font-size:14px">If the button does not work, copy this address into your browser:<br>${escapeHtml(link.href)}</p>
`
    : '';
  return `<!doctype html>
<html><body style="font-family: Arial, sans-serif; color: #1f2933; line-height: 1.5">
${body}
${button}</body></html>`;
}

export function activationMessage(input: {
  to: string;
  firstName: string;
  username: string;
  link: string;
}): MailMessage {
  const lines = [
    `Dear ${input.firstName},`,
    'An account has been created for you at the tutoring agency.',
    `Your username is: ${input.username}`,
    'Please follow the link below to choose your password and activate your account. The link works once and expires in 7 days.',
  ];
  return {
    to: input.to,
    subject: 'Activate your tutoring agency account',
    text: `${lines.join('\n\n')}\n\n${input.link}\n`,
    html: layout(lines, { href: input.link, label: 'Activate your account' }),
    links: [input.link],
  };
}

export function resetMessage(input: { to: string; name: string; username: string; link: string }): MailMessage {
  const lines = [
    `Dear ${input.name},`,
    `Someone asked to reset the password of the account "${input.username}" at the tutoring agency.`,
    'Follow the link below to choose a new password. The link works once and expires in 1 hour. If you did not ask for this, you can ignore this email.',
  ];
  return {
    to: input.to,
    subject: 'Reset your tutoring agency password',
    text: `${lines.join('\n\n')}\n\n${input.link}\n`,
    html: layout(lines, { href: input.link, label: 'Choose a new password' }),
    links: [input.link],
  };
}

/** A family's invoice (or credit note), its PDF attached. */
export function familyDocumentMessage(input: {
  to: string;
  name: string;
  kind: 'invoice' | 'credit note';
  reference: string;
  total: string;
  dueDate: string;
  agencyName: string;
  pdf: Buffer;
}): MailMessage {
  const lines =
    input.kind === 'invoice'
      ? [
          `Dear ${input.name},`,
          `Please find attached our invoice ${input.reference} for ${input.total}, due by ${input.dueDate}.`,
          'The payment details are on the invoice. Thank you.',
          input.agencyName,
        ]
      : [
          `Dear ${input.name},`,
          `Please find attached our credit note ${input.reference} for ${input.total}: it cancels an invoice we sent you.`,
          input.agencyName,
        ];
  const title = input.kind === 'invoice' ? 'Invoice' : 'Credit note';
  return {
    to: input.to,
    subject: `${title} ${input.reference} from ${input.agencyName}`,
    text: `${lines.join('\n\n')}\n`,
    html: layout(lines),
    links: [],
    attachments: [{ filename: `${input.reference}.pdf`, content: input.pdf, contentType: 'application/pdf' }],
  };
}

/** A workshop booking's news for the parent: booked, on the waiting list, given a place, or cancelled. */
export function workshopMessage(input: {
  to: string;
  name: string;
  subject: string;
  paragraphs: string[];
}): MailMessage {
  const lines = [`Dear ${input.name},`, ...input.paragraphs];
  return { to: input.to, subject: input.subject, text: `${lines.join('\n\n')}\n`, html: layout(lines), links: [] };
}
