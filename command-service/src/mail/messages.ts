import { workshop } from '@agency/domain';
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

/** A family contact's one-time sign-in link (docs/family-access.md). */
export function familySignInMessage(input: { to: string; firstName: string; link: string }): MailMessage {
  const lines = [
    `Dear ${input.firstName},`,
    'Someone asked to sign in to your family page at the tutoring agency with this e-mail address.',
    'Follow the link below to sign in. The link works once and expires in 15 minutes. If you did not ask for this, you can ignore this email.',
  ];
  return {
    to: input.to,
    subject: 'Sign in to your family page',
    text: `${lines.join('\n\n')}\n\n${input.link}\n`,
    html: layout(lines, { href: input.link, label: 'Sign in' }),
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

/**
 * The mail that asks an address to confirm a public booking. Nobody has confirmed the address
 * yet, so it carries nothing the booker typed but the children's first names, each cut short
 * (docs/limits.md, "Public bookings"): the agency's mail cannot carry anyone's text to anyone.
 */
export function bookingRequestMessage(input: {
  to: string;
  event: string;
  childrenFirstNames: string[];
  held: boolean;
  /** Places left for others when it was asked for: a request not held did not fit in them. */
  placesLeft: number;
  holdMinutes: number;
  link: string;
}): MailMessage {
  const names = input.childrenFirstNames.map((name) => shortName(name)).join(', ');
  const places = input.childrenFirstNames.length;
  const lines = [
    'Hello,',
    `Somebody asked with this e-mail address to book ${places} ${places === 1 ? 'place' : 'places'} at ${input.event}, for ${names}.`,
    input.held
      ? `The ${places === 1 ? 'place is' : 'places are'} held for ${input.holdMinutes} minutes. Confirm the booking to keep ${places === 1 ? 'it' : 'them'}:`
      : input.placesLeft <= 0
        ? `The workshop is full: confirm within ${input.holdMinutes} minutes to join its waiting list.`
        : `Only ${workshop.placesAreLeft(input.placesLeft)}, and a booking takes places for all its children or none, so this booking of ${workshop.childrenText(places)} goes on the waiting list. Confirm within ${input.holdMinutes} minutes to join it:`,
  ];
  const after = 'If this was not you, ignore this e-mail: nothing is booked, and the details given are deleted.';
  return {
    to: input.to,
    subject: `Please confirm your booking: ${input.event}`,
    text: `${[...lines, input.link, after].join('\n\n')}\n`,
    html: layout([...lines], { href: input.link, label: 'Confirm the booking' }).replace(
      '</body>',
      `<p>${escapeHtml(after)}</p></body>`,
    ),
    links: [input.link],
  };
}

/** A first name as a mail may show it: one line, at most 40 characters. */
const shortName = (name: string) => {
  const line = name.replace(/[\p{Cc}\p{Cf}]+/gu, ' ').trim();
  return line.length > 40 ? `${line.slice(0, 39)}…` : line;
};

/** A workshop booking's news for the parent: booked, on the waiting list, given a place, moved, deleted or cancelled. */
export function workshopMessage(input: {
  to: string;
  name: string;
  subject: string;
  paragraphs: string[];
}): MailMessage {
  const lines = [`Dear ${input.name},`, ...input.paragraphs];
  return { to: input.to, subject: input.subject, text: `${lines.join('\n\n')}\n`, html: layout(lines), links: [] };
}
