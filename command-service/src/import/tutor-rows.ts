import { type ContactDetails, type TutorEvent, tutorBody } from '@agency/contracts';
import { contactDetails, todayIn, tutor } from '@agency/domain';
import { type EventStore, HttpError } from '@agency/platform';
import type pg from 'pg';
import { derivedId } from '../pipeline/command-pipeline';
import { foldStream } from '../pipeline/stream-states';
import type { TutorNames } from '../tutors/tutor-names';
import {
  addressCells,
  CONTACT_COLUMNS,
  dateCell,
  type ImportRow,
  idForKey,
  parsedWith,
  phoneCells,
  planWrite,
  type RowPlan,
  RowRefused,
  sameAs,
} from './import-rows';

/** The names in use, and whom each is reserved for: read once per import, added to as rows plan theirs. */
export type NamesInUse = {
  usernames: Map<string, string | null>;
  prefixes: Map<string, string | null>;
};

/** Every reserved username and invoice prefix, with the tutor each is reserved for (none: a login's). */
export async function namesInUse(db: pg.Pool): Promise<NamesInUse> {
  const rows = await db.query<{ kind: string; name: string; tutor_id: string | null }>(
    `select 'prefix' as kind, name, tutor_id from command.tutor_names where kind = 'prefix'
     union all select 'username', name, tutor_id from command.usernames`,
  );
  const names: NamesInUse = { usernames: new Map(), prefixes: new Map() };
  for (const { kind, name, tutor_id } of rows.rows) {
    (kind === 'username' ? names.usernames : names.prefixes).set(name, tutor_id);
  }
  return names;
}

/** The file's column for each path of the tutor form's body (and of the tutor decider's refusals). */
export const TUTOR_COLUMNS: Record<string, string> = {
  ...Object.fromEntries(Object.entries(CONTACT_COLUMNS).map(([path, column]) => [`contact.${path}`, column])),
  'tutor.username': 'username',
  'tutor.invoicePrefix': 'invoice_prefix',
  'tutor.startDate': 'start_date',
};

/**
 * A new tutor's names when the row leaves them blank: the ones already reserved for this tutor's
 * id (by a run cut short, or another run of the same file at the same moment) are theirs, so
 * every run suggests the same; otherwise suggested from the name, as the form does.
 */
function suggestedNames(row: ImportRow, tutorId: string, inUse: NamesInUse) {
  const reservedFor = (map: Map<string, string | null>) => [...map].find(([, holder]) => holder === tutorId)?.[0];
  const suggested = tutor.suggestTutorNames(row.cell('first_name'), row.cell('last_name'), {
    usernames: new Set(inUse.usernames.keys()),
    prefixes: new Set(inUse.prefixes.keys()),
  });
  return {
    username: reservedFor(inUse.usernames) ?? suggested.username,
    prefix: reservedFor(inUse.prefixes) ?? suggested.prefix,
  };
}

/**
 * Reserves a new tutor's names. Another run of the same file may be reserving them for this very
 * tutor at the same moment: the statement that waited for it cannot see what it committed, and
 * says taken; asked again, it sees they are this tutor's own.
 */
async function reserveOnce(names: TutorNames, tutorId: string, username: string, invoicePrefix: string) {
  try {
    await names.reserve(tutorId, username, invoicePrefix);
  } catch (error) {
    if (!(error instanceof HttpError && error.code === 'name_taken')) throw error;
    await names.reserve(tutorId, username, invoicePrefix);
  }
}

async function readTutor(store: EventStore, tutorId: string) {
  const events = await store.readStream(tutor.tutorStream(tutorId));
  let contact: ContactDetails | undefined;
  for (const recorded of events) {
    const event = { type: recorded.type, data: recorded.data } as TutorEvent;
    if (event.type === 'TutorRegistered' || event.type === 'TutorDetailsChanged') contact = event.data.contact;
  }
  return { folded: foldStream(tutor.tutorDecider, events), contact };
}

/**
 * A tutor row: a new tutor is registered with the row's username and invoice prefix (suggested
 * from the name when left blank, as the form does) once both are reserved; a known tutor gets the
 * changes of their contact details, and keeps the names and start date first given.
 */
export async function planTutor(
  row: ImportRow,
  key: string,
  {
    store,
    now,
    timeZone,
    names,
    inUse,
  }: { store: EventStore; now: Date; timeZone: string; names: TutorNames; inUse: NamesInUse },
): Promise<RowPlan> {
  const tutorId = idForKey('tutors', key);
  const known = await readTutor(store, tutorId);
  const state = known.folded.state;
  if (state.status !== 'none' && state.erased) throw new RowRefused("This tutor's personal data was erased.");
  if (state.status !== 'none') {
    // A tutor recorded since the names were read (another run of the file, at the same moment)
    // holds theirs: the rows below must not be suggested them.
    inUse.usernames.set(state.username.toLowerCase(), tutorId);
    inUse.prefixes.set(state.invoicePrefix.toUpperCase(), tutorId);
  }
  const suggested =
    state.status === 'none'
      ? suggestedNames(row, tutorId, inUse)
      : { username: state.username, prefix: state.invoicePrefix };
  const body = parsedWith(
    tutorBody,
    {
      contact: {
        firstName: row.cell('first_name'),
        lastName: row.cell('last_name'),
        email: row.cell('email'),
        phone: phoneCells(row, 'Mobile'),
        address: addressCells(row),
        postcode: row.cell('postcode'),
      },
      tutor: {
        username: row.cell('username') || suggested.username,
        invoicePrefix: row.cell('invoice_prefix') || suggested.prefix,
        startDate: dateCell(row, 'start_date'),
      },
    },
    TUTOR_COLUMNS,
  );
  const { username, invoicePrefix } = body.tutor;
  const stream = tutor.tutorStream(tutorId);
  if (state.status === 'none') {
    const fields: Record<string, string> = {};
    const holder = (map: Map<string, string | null>, name: string) => (map.has(name) ? map.get(name) : tutorId);
    // Reserved as the store keeps them: usernames in lower case, prefixes in upper case.
    if (holder(inUse.usernames, username.toLowerCase()) !== tutorId) fields.username = 'That username is already taken';
    if (holder(inUse.prefixes, invoicePrefix.toUpperCase()) !== tutorId)
      fields.invoice_prefix = 'That invoice prefix is already taken';
    if (Object.keys(fields).length > 0) throw new RowRefused(Object.values(fields).join('; '), fields);
    // Held for this row from now on, so a later row of the file is not given the same.
    inUse.usernames.set(username.toLowerCase(), tutorId);
    inUse.prefixes.set(invoicePrefix.toUpperCase(), tutorId);
    const contact = contactDetails(derivedId(tutorId, 'contact'), body.contact);
    const startDate = body.tutor.startDate ?? todayIn(timeZone, now);
    const command: tutor.TutorCommand = { type: 'RegisterTutor', tutorId, startDate, username, invoicePrefix, contact };
    return {
      outcome: 'create',
      id: tutorId,
      write: {
        ...planWrite(tutor.tutorDecider, known.folded, [command], stream, now),
        before: () => reserveOnce(names, tutorId, username, invoicePrefix),
        // Released only while no tutor holds them: a refusal because another run recorded this
        // tutor meanwhile must not free the names that tutor now goes by.
        undo: async () => {
          if ((await store.readStream(stream)).length === 0) await names.release(tutorId);
        },
      },
    };
  }
  const fields: Record<string, string> = {};
  if (username !== state.username) fields.username = 'The username cannot be changed';
  if (invoicePrefix !== state.invoicePrefix) fields.invoice_prefix = 'The invoice prefix cannot be changed';
  if (Object.keys(fields).length > 0)
    throw new RowRefused('A tutor keeps the username and invoice prefix first given.', fields);
  const { id: _id, ...contact } = contactDetails(state.contactId, body.contact);
  if (known.contact && sameAs({ ...known.contact, id: state.contactId }, { ...contact, id: state.contactId }))
    return { outcome: 'unchanged', id: tutorId };
  const command: tutor.TutorCommand = { type: 'ChangeTutorDetails', contact };
  return { outcome: 'update', id: tutorId, write: planWrite(tutor.tutorDecider, known.folded, [command], stream, now) };
}
