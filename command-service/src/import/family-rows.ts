import {
  type ChildDetails,
  type ClientEvent,
  type ContactDetails,
  childBody,
  contactBody,
  MAX_IMPORT_CHILDREN,
} from '@agency/contracts';
import { client, contactDetails, todayIn } from '@agency/domain';
import type { EventStore } from '@agency/platform';
import { derivedId } from '../pipeline/command-pipeline';
import { type FoldedStream, foldStream } from '../pipeline/stream-states';
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

/** A family as its stream records it: the contacts' and the children's details, by id. */
export type FamilyRecord = {
  folded: FoldedStream<client.ClientState>;
  contacts: Map<string, ContactDetails>;
  children: Map<string, ChildDetails>;
};

export async function readFamily(store: EventStore, clientId: string): Promise<FamilyRecord> {
  const events = await store.readStream(client.clientStream(clientId));
  const contacts = new Map<string, ContactDetails>();
  const children = new Map<string, ChildDetails>();
  for (const recorded of events) {
    const event = { type: recorded.type, data: recorded.data } as ClientEvent;
    if (event.type === 'ClientRegistered' || event.type === 'ContactAdded' || event.type === 'ContactDetailsChanged')
      contacts.set(event.data.contact.id, event.data.contact);
    if (event.type === 'ChildAdded' || event.type === 'ChildDetailsChanged')
      children.set(event.data.child.id, event.data.child);
  }
  return { folded: foldStream(client.clientDecider, events), contacts, children };
}

/** The family's first contact (the row's own columns) and its children (`child_N_…`). */
export const contactIdOf = (clientId: string) => derivedId(clientId, 'contact', 1);
export const childIdOf = (clientId: string, n: number) => derivedId(clientId, 'child', n);

function childrenOf(row: ImportRow, clientId: string, familyName: string): ChildDetails[] {
  const children: ChildDetails[] = [];
  for (let n = 1; n <= MAX_IMPORT_CHILDREN; n++) {
    const prefix = `child_${n}_`;
    const cells = ['first_name', 'last_name', 'dob'].map((name) => row.cell(prefix + name));
    if (cells.every((value) => value === '')) continue;
    const body = parsedWith(
      childBody,
      {
        firstName: row.cell(`${prefix}first_name`),
        // A child's surname left blank is the family's.
        lastName: row.cell(`${prefix}last_name`) || familyName,
        dob: dateCell(row, `${prefix}dob`),
      },
      { firstName: `${prefix}first_name`, lastName: `${prefix}last_name`, dob: `${prefix}dob` },
    );
    children.push({ id: childIdOf(clientId, n), firstName: body.firstName, lastName: body.lastName, dob: body.dob });
  }
  return children;
}

/**
 * A family row: a new family is registered with its contact and children in one write; a known
 * one gets the changes of its contact's and children's details, and the children it lacks. What a
 * row leaves out (another contact, a child it does not name, the family's active flag) stays.
 */
export async function planFamily(
  row: ImportRow,
  key: string,
  { store, now, timeZone }: { store: EventStore; now: Date; timeZone: string },
): Promise<RowPlan> {
  const clientId = idForKey('families', key);
  const family = await readFamily(store, clientId);
  if (family.folded.state.status === 'registered' && family.folded.state.erased)
    throw new RowRefused("This family's personal data was erased.");
  const contactId = contactIdOf(clientId);
  const known = family.contacts.get(contactId);
  const body = parsedWith(
    contactBody,
    {
      firstName: row.cell('first_name'),
      lastName: row.cell('last_name'),
      email: row.cell('email'),
      phone: phoneCells(row, 'Home'),
      address: addressCells(row),
      postcode: row.cell('postcode'),
      // A contact's date of birth is kept when the file has no column for it.
      dob: row.has('dob') ? dateCell(row, 'dob') : (known?.dob ?? null),
    },
    CONTACT_COLUMNS,
  );
  const contact = contactDetails(contactId, body);
  // Phone types are the product's own (the file names none): a known number keeps its type.
  contact.phone = contact.phone.map((entry) => ({
    ...entry,
    type: known?.phone.find((kept) => kept.number === entry.number)?.type ?? entry.type,
  }));
  const children = childrenOf(row, clientId, contact.lastName);
  const stream = client.clientStream(clientId);
  if (family.folded.state.status === 'none') {
    const commands: client.ClientCommand[] = [
      { type: 'RegisterClient', clientId, startDate: todayIn(timeZone, now), contact },
      ...children.map((child): client.ClientCommand => ({ type: 'AddChild', child })),
    ];
    return {
      outcome: 'create',
      id: clientId,
      write: planWrite(client.clientDecider, family.folded, commands, stream, now),
    };
  }
  const commands: client.ClientCommand[] = [];
  if (!known) {
    // Registered otherwise (its id was given as the reference): the row's contact is added to it.
    commands.push({ type: 'AddContact', contact });
  } else if (!sameAs(known, contact)) commands.push({ type: 'ChangeContactDetails', contact });
  for (const child of children) {
    const kept = family.children.get(child.id);
    if (!kept) commands.push({ type: 'AddChild', child });
    else if (!sameAs(kept, child)) commands.push({ type: 'ChangeChildDetails', child });
  }
  if (commands.length === 0) return { outcome: 'unchanged', id: clientId };
  return {
    outcome: 'update',
    id: clientId,
    write: planWrite(client.clientDecider, family.folded, commands, stream, now),
  };
}
