import { LIMITS, type ProductEvent } from '@agency/contracts';
import {
  agency,
  client,
  type Decider,
  displayDate,
  familyInvoice,
  fold,
  formatPounds,
  tutor,
  workshop,
} from '@agency/domain';
import { comparePositions, type EventStore, type Position, type RecordedEvent } from '@agency/platform';
import { issuedDocumentOf, readFromStore, renderIssuedDocument } from '@agency/platform/documents/issued-documents';
import type { FastifyBaseLogger } from 'fastify';
import type pg from 'pg';
import type { Reactor } from '../reactors/reactor';
import { clientStreamOf, erasedIn, reminderMessage } from '../reminders/reminder-message';
import { sha256 } from '../tutors/tutor-routes';
import { accountKeyOf } from '../workshops/workshop-reactor';
import { RefusedRecipient } from './erased-recipients';
import { MAIL_REACTOR } from './mail-reactor-name';
import type { Mailer, MailMessage } from './mailer';
import {
  absoluteLink,
  activationMessage,
  bookingRequestMessage,
  familyDocumentMessage,
  familySignInMessage,
  resetMessage,
  workshopMessage,
} from './messages';

/** The Message-ID of an event's `index`th message: the same on every run of the event. */
export const messageIdOf = (eventId: string, index: number) => `<${eventId}.${index}@agency>`;

type Handled =
  | 'WorkshopBookingRequested'
  | 'WorkshopRegistrationMade'
  | 'WorkshopRegistrationPlaced'
  | 'WorkshopRegistrationDeleted'
  | 'WorkshopEventCancelled'
  | 'FamilyInvoiceIssued'
  | 'FamilyCreditNoteIssued'
  | 'FamilyInvoiceReminderRecorded'
  | 'TutorActivationEmailSent'
  | 'PasswordResetRequested'
  | 'FamilySignInLinkRequested';
type DataOf<T extends Handled> = Extract<ProductEvent, { type: T }>['data'];

/** What one event mails, in a fixed order (a message's index is its place here), and the link it used up. */
type Letters = { messages: MailMessage[]; linkId?: string };
type Composers = { [T in Handled]: (data: DataOf<T>, event: RecordedEvent) => Promise<Letters> };

type LiveWorkshop = Exclude<workshop.WorkshopState, { status: 'none' }>;

/**
 * A mail server that will never take this message as addressed: the recipient refused with a 5xx
 * answer, or no address to send to (an erased subject reads "Erased"). Anything else (no
 * connection, a time-out, a 4xx "try later") may pass on a later try.
 */
function refusedForGood(error: unknown): boolean {
  if (error instanceof RefusedRecipient) return true;
  const { code, responseCode } = (error ?? {}) as { code?: unknown; responseCode?: unknown };
  return code === 'EENVELOPE' && typeof responseCode === 'number' && responseCode >= 500 && responseCode < 600;
}

/** Errors whose message names only the server (host, port), never a recipient. */
const CONNECTION_CODES = new Set(['ECONNECTION', 'ESOCKET', 'ETIMEDOUT', 'EDNS', 'ETLS', 'EAUTH']);

/**
 * Why a message could not be sent this time, in words that name no recipient and no link: it is
 * what the reactor's failure (health, the admin banner, the log) shows.
 */
function transientFailure(error: unknown): Error {
  const { code, responseCode, message } = (error ?? {}) as {
    code?: unknown;
    responseCode?: unknown;
    message?: unknown;
  };
  const parts = [typeof code === 'string' ? code : 'mail error', typeof responseCode === 'number' ? responseCode : ''];
  const detail =
    typeof code === 'string' && CONNECTION_CODES.has(code) && typeof message === 'string' ? `: ${message}` : '';
  return new Error(`The e-mail could not be sent (${parts.filter(Boolean).join(' ')}${detail}); it is tried again`);
}

export type MailReactorOptions = {
  db: pg.Pool;
  /** The store as the app reads it: personal fields clear (or "Erased"). */
  store: EventStore;
  mailer: Mailer;
  /** Where links in e-mails point. */
  publicUrl: string;
  log: Pick<FastifyBaseLogger, 'warn'>;
};

/**
 * The outbox: every e-mail the agency sends follows from an event, and is sent here, never in a
 * request. Each message is recorded in `command.mail_sent` (the event's id and the message's
 * index) right after the mail server took it, and a recorded one is never sent again: a re-run
 * of an event (a crash before the checkpoint moved, the leader changing hands) sends only what is
 * missing. The one gap is a crash between the send and its record: the message then goes twice,
 * with the same Message-ID (derived from the event), which lets the receiving side drop the copy.
 *
 * What a message says is read from the events as they were when it was caused (streams folded up
 * to the triggering event), so a later change never rewrites an old mail. A recipient refused
 * for good (SMTP 5xx, an erased address) is logged without the address and skipped; any other
 * failure throws, and the runner tries the event again with backoff and reports it.
 */
export function mailReactor({ db, store, mailer, publicUrl, log }: MailReactorOptions): Reactor {
  /** The stream's events up to and including `revision`. */
  const upToRevision = async (streamId: string, revision: number) =>
    (await store.readStream(streamId)).filter((event) => event.revision <= revision);
  /** Another stream's events recorded up to `position` (the triggering event's place in `$all`). */
  const asOf = async (streamId: string, position: Position) =>
    (await store.readStream(streamId)).filter((event) => comparePositions(event.position, position) <= 0);
  const foldEvents = <E, S>(
    decider: Pick<Decider<unknown, E, S>, 'initialState' | 'evolve'>,
    events: RecordedEvent[],
  ) =>
    fold(
      decider,
      events.map((event) => ({ type: event.type, data: event.data }) as E),
    );

  const workshopAt = async (event: RecordedEvent, revision: number): Promise<LiveWorkshop | undefined> => {
    const state = foldEvents(workshop.workshopDecider, await upToRevision(event.streamId, revision));
    return state.status === 'none' ? undefined : state;
  };
  const when = (state: LiveWorkshop) =>
    `${state.event.description} on ${workshop.displayDateTime(state.event.dateTime)}`;
  const workshopLetter = (registration: workshop.Registration, subject: string, paragraphs: string[]) =>
    workshopMessage({ to: registration.contact.email, name: registration.contact.firstName, subject, paragraphs });
  const firstNames = (registration: workshop.Registration) =>
    registration.children.map((child) => child.firstName).join(', ');
  const hasPlaces = (registration: workshop.Registration) =>
    `${firstNames(registration)} ${registration.places === 1 ? 'has a place' : 'have places'}`;
  const where = (state: LiveWorkshop) => (state.event.location ? `Where: ${state.event.location}.` : '');
  /**
   * Why a registration made by `event` went on the waiting list: the places left just before it,
   * as its decision counted them then (a hold past its time counted as free).
   */
  const waitingListWords = async (event: RecordedEvent, state: LiveWorkshop, registration: workshop.Registration) => {
    const before = await workshopAt(event, event.revision - 1);
    const left = before ? workshop.placesLeft(before, new Date(event.metadata.recordedAt)) : 0;
    return [
      workshop.waitingListSentence(when(state), left, registration.places),
      'We will e-mail you if a place comes free for your booking.',
    ];
  };

  async function familyDocument(event: RecordedEvent, kind: 'invoice' | 'credit note'): Promise<Letters> {
    const issued = foldEvents(familyInvoice.familyInvoiceDecider, await upToRevision(event.streamId, event.revision));
    if (issued.status === 'none') return { messages: [] };
    const { invoice, creditNote } = issued;
    const document = kind === 'invoice' ? invoice : creditNote;
    if (!document) return { messages: [] };
    // The very document its PDF route and `npm run verify` render from the same events (docs/documents.md).
    const printed = await issuedDocumentOf(event, readFromStore(store));
    if (!printed) return { messages: [] };
    const pdf = await renderIssuedDocument(printed);
    const details = printed.agency;
    const message = familyDocumentMessage({
      to: invoice.billing.email,
      name: invoice.billing.name,
      kind,
      reference: document.reference,
      total: formatPounds(invoice.totalPence),
      dueDate: displayDate(invoice.dueDate),
      agencyName: details.name,
      pdf,
    });
    return { messages: [message] };
  }

  /**
   * A link's secret, while the link can still be used: kept apart until its mail is sent (the
   * event names only the link), and its hash still live in `table` (not used, not expired, not
   * replaced by a newer one). Undefined: there is nothing worth sending.
   */
  async function liveSecret(linkId: string, table: 'activation_codes' | 'reset_tokens' | 'family_sign_in_links') {
    await db.query('delete from auth.pending_links where expires_at <= now()');
    const found = await db.query<{ secret: string }>('select secret from auth.pending_links where id = $1', [linkId]);
    const secret = found.rows[0]?.secret;
    if (secret === undefined) return undefined;
    const hashColumn = table === 'activation_codes' ? 'code_hash' : 'token_hash';
    const live = await db.query(
      `select 1 from auth.${table} where ${hashColumn} = $1 and used_at is null and expires_at > now()`,
      [sha256(secret)],
    );
    return live.rowCount ? secret : undefined;
  }

  /** A contact's latest details on a tutor's stream, as recorded up to `position`. */
  async function tutorContactAsOf(tutorId: string, position: Position) {
    let contact: { firstName: string; email: string } | undefined;
    for (const event of await asOf(tutor.tutorStream(tutorId), position)) {
      const known = { type: event.type, data: event.data } as ProductEvent;
      if (known.type === 'TutorRegistered' || known.type === 'TutorDetailsChanged') contact = known.data.contact;
    }
    return contact;
  }

  const composers: Composers = {
    async WorkshopBookingRequested(data, event) {
      // The secret, while its booking has not lapsed (the link's hash is kept until then).
      await db.query('delete from auth.pending_links where expires_at <= now()');
      const found = await db.query<{ secret: string }>('select secret from auth.pending_links where id = $1', [
        data.linkId,
      ]);
      const secret = found.rows[0]?.secret;
      const live =
        secret !== undefined &&
        (
          await db.query('select 1 from command.booking_links where token_hash = $1 and expires_at > now()', [
            sha256(secret),
          ])
        ).rowCount === 1;
      const state = await workshopAt(event, event.revision);
      if (!live || !state) return { messages: [], linkId: data.linkId };
      const message = bookingRequestMessage({
        to: data.contact.email,
        event: when(state),
        childrenFirstNames: data.children.map((child) => child.firstName),
        held: data.held,
        placesLeft: workshop.placesLeft(state, new Date(event.metadata.recordedAt)),
        holdMinutes: LIMITS.bookingHoldMinutes,
        link: absoluteLink(publicUrl, `/book/confirm/${secret}`),
      });
      return { messages: [message], linkId: data.linkId };
    },

    async WorkshopRegistrationMade(data, event) {
      const state = await workshopAt(event, event.revision);
      const registration = state?.registrations.get(data.registrationId);
      if (!state || !registration) return { messages: [] };
      if (data.movedFrom !== null) {
        // Moved in from another event: where from, where to, and whether it has places there.
        const from = foldEvents(
          workshop.workshopDecider,
          await asOf(workshop.workshopStream(data.movedFrom), event.position),
        );
        const paragraphs = [
          `Your booking for ${firstNames(registration)} has moved from ${from.status === 'none' ? 'another workshop' : when(from)} to ${when(state)}.`,
          ...(data.status === 'registered'
            ? [`${hasPlaces(registration)} there.`, where(state)]
            : await waitingListWords(event, state, registration)),
          'If you did not ask for this, please get in touch with us.',
        ].filter(Boolean);
        return { messages: [workshopLetter(registration, `Booking moved: ${state.event.description}`, paragraphs)] };
      }
      if (data.status === 'registered') {
        const paragraphs = [
          `Thank you: ${hasPlaces(registration)} at ${when(state)}.`,
          where(state),
          'We will send you an invoice.',
        ].filter(Boolean);
        return { messages: [workshopLetter(registration, `Booked: ${state.event.description}`, paragraphs)] };
      }
      const paragraphs = await waitingListWords(event, state, registration);
      return { messages: [workshopLetter(registration, `Waiting list: ${state.event.description}`, paragraphs)] };
    },

    async WorkshopRegistrationDeleted(data, event) {
      const before = await workshopAt(event, event.revision - 1);
      const registration = before?.registrations.get(data.registrationId);
      // A cancelled event's parents were told so; a booking tidied away after its workshop's day is no news.
      if (!before || !registration || before.status === 'cancelled') return { messages: [] };
      if (before.event.dateTime.slice(0, 10) < event.metadata.recordedAt.slice(0, 10)) return { messages: [] };
      const key = accountKeyOf(registration);
      const account = key
        ? foldEvents(workshop.accountDecider, await asOf(workshop.accountStream(key), event.position))
        : undefined;
      const waiting = registration.status === 'waitlisted' ? ', on the waiting list,' : '';
      const paragraphs = [
        `Your booking${waiting} for ${firstNames(registration)} at ${when(before)} has been cancelled.`,
        account?.invoiced.has(data.registrationId)
          ? 'The invoice that billed it is credited: you will receive a credit note by e-mail.'
          : '',
        'If you did not ask for this, please get in touch with us.',
      ].filter(Boolean);
      return { messages: [workshopLetter(registration, `Booking cancelled: ${before.event.description}`, paragraphs)] };
    },

    async WorkshopRegistrationPlaced(data, event) {
      const state = await workshopAt(event, event.revision);
      const registration = state?.registrations.get(data.registrationId);
      if (!state || !registration) return { messages: [] };
      return {
        messages: [
          workshopLetter(registration, `A place for you: ${state.event.description}`, [
            `Good news: a place came free, so your booking for ${when(state)} is confirmed.`,
          ]),
        ],
      };
    },

    async WorkshopEventCancelled(_data, event) {
      // Everyone on the event just before it was cancelled, waiting list included, in booking order.
      const before = await workshopAt(event, event.revision - 1);
      if (!before || before.status === 'cancelled') return { messages: [] };
      return {
        messages: [...before.registrations.values()].map((registration) =>
          workshopLetter(registration, `Cancelled: ${before.event.description}`, [
            `We are sorry: ${when(before)} has been cancelled.`,
            'Anything you were invoiced for it is credited. We hope to see you at another workshop.',
          ]),
        ),
      };
    },

    FamilyInvoiceIssued: (_data, event) => familyDocument(event, 'invoice'),
    FamilyCreditNoteIssued: (_data, event) => familyDocument(event, 'credit note'),

    async FamilyInvoiceReminderRecorded(data, event) {
      // As things stood when it was recorded: nothing for an invoice paid or credited by then, nor for an erased family.
      const invoice = foldEvents(
        familyInvoice.familyInvoiceDecider,
        await asOf(familyInvoice.familyInvoiceStream(data.invoiceId), event.position),
      );
      const owed = invoice.status === 'none' ? 0 : familyInvoice.outstandingOf(invoice);
      const family = clientStreamOf(data.clientId);
      if (invoice.status === 'none' || owed === 0 || (family && erasedIn(await asOf(family, event.position)))) {
        return { messages: [] };
      }
      const details = agency.detailsOf(
        foldEvents(agency.agencyDecider, await asOf(agency.agencyStream(), event.position)),
      );
      return { messages: [reminderMessage(data, invoice, details, owed)] };
    },

    async TutorActivationEmailSent(data, event) {
      // Version 1: sent by the request itself, before the outbox.
      if (data.linkId === null) return { messages: [] };
      const code = await liveSecret(data.linkId, 'activation_codes');
      if (code === undefined) return { messages: [], linkId: data.linkId };
      const state = foldEvents(tutor.tutorDecider, await upToRevision(event.streamId, event.revision));
      const contact = await tutorContactAsOf(data.tutorId, event.position);
      if (state.status === 'none' || !contact) return { messages: [], linkId: data.linkId };
      const message = activationMessage({
        to: data.sentTo,
        firstName: contact.firstName,
        username: state.username,
        link: absoluteLink(publicUrl, `/activate/${code}`),
      });
      return { messages: [message], linkId: data.linkId };
    },

    async PasswordResetRequested(data, event) {
      const token = await liveSecret(data.linkId, 'reset_tokens');
      if (token === undefined) return { messages: [], linkId: data.linkId };
      let login: { username: string; name: string; tutorId: string | null } | undefined;
      for (const recorded of await upToRevision(event.streamId, event.revision)) {
        const known = { type: recorded.type, data: recorded.data } as ProductEvent;
        if (known.type === 'UserRegistered') login = { ...known.data };
        if (known.type === 'UserRoleChanged' && login) login = { ...login, tutorId: known.data.tutorId };
      }
      // Only a tutor's login has an address (the tutor's own): the request answered the same for the others.
      const contact = login?.tutorId ? await tutorContactAsOf(login.tutorId, event.position) : undefined;
      if (!login || !contact) return { messages: [], linkId: data.linkId };
      const message = resetMessage({
        to: contact.email,
        name: login.name,
        username: login.username,
        link: absoluteLink(publicUrl, `/reset/${token}`),
      });
      return { messages: [message], linkId: data.linkId };
    },
    async FamilySignInLinkRequested(data, event) {
      const token = await liveSecret(data.linkId, 'family_sign_in_links');
      if (token === undefined) return { messages: [], linkId: data.linkId };
      // The contact's address as the family's stream had it when the link was asked for.
      let contact: { firstName: string; email: string } | undefined;
      for (const recorded of await asOf(client.clientStream(data.clientId), event.position)) {
        const known = { type: recorded.type, data: recorded.data } as ProductEvent;
        const named = 'contact' in known.data ? known.data.contact : undefined;
        if (named && 'id' in named && named.id === data.contactId) contact = named;
      }
      if (!contact) return { messages: [], linkId: data.linkId };
      const link = absoluteLink(publicUrl, `/family/sign-in/${token}`);
      const message = familySignInMessage({ to: contact.email, firstName: contact.firstName, link });
      return { messages: [message], linkId: data.linkId };
    },
  };

  /** Sends one message unless a run before this one did (or found it refused for good), and records it. */
  async function deliver(event: RecordedEvent, index: number, message: MailMessage) {
    const done = await db.query('select 1 from command.mail_sent where event_id = $1 and message_index = $2', [
      event.id,
      index,
    ]);
    if (done.rowCount) return;
    let outcome: 'sent' | 'refused' = 'sent';
    try {
      await mailer.send({ ...message, messageId: messageIdOf(event.id, index) });
    } catch (error) {
      if (!refusedForGood(error)) throw transientFailure(error);
      outcome = 'refused';
      // Never the address: the log outlives an erasure.
      log.warn(
        { eventId: event.id, eventType: event.type, messageIndex: index },
        'an e-mail was refused for good (no such recipient, or an erased one): skipped',
      );
    }
    await db.query(
      `insert into command.mail_sent (event_id, message_index, outcome) values ($1, $2, $3)
       on conflict (event_id, message_index) do nothing`,
      [event.id, index, outcome],
    );
  }

  return {
    name: MAIL_REACTOR,
    handles: Object.keys(composers),
    async react(given) {
      const compose = composers[given.type as Handled] as
        | ((data: unknown, event: RecordedEvent) => Promise<Letters>)
        | undefined;
      if (!compose) return;
      // The event as the store reads it now, not the copy in hand: a letter leaves the agency, so
      // an erasure since the copy was opened (while the reactor worked through the events before
      // it) must show here; read now, the address reads "Erased".
      const event = (await store.readStream(given.streamId)).find((recorded) => recorded.id === given.id) ?? given;
      // Unreadable now (its key not to be had this moment): tried again, as the runner does.
      if (event.readError) throw event.readError;
      const { messages, linkId } = await compose(event.data, event);
      for (const [index, message] of messages.entries()) await deliver(event, index, message);
      // The secret has done its work (or can do none): it leaves the database.
      if (linkId !== undefined) await db.query('delete from auth.pending_links where id = $1', [linkId]);
    },
  };
}
