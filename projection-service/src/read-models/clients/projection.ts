import { type ClientEvent, type ContactDetails, ERASED } from '@agency/contracts';
import type { RecordedEvent } from '@agency/platform';
import type pg from 'pg';
import { contactColumns } from '../contact-columns';
import { defineProjection } from '../projection';
import { snapshotVersion, type VersionTable } from '../versions';

/** The versions of children's names (054_child_versions.sql), for the views as of a past moment. */
const CHILD_VERSIONS: VersionTable = {
  name: 'child_versions',
  key: [['id', 'text']],
  values: [
    ['client_id', 'text'],
    ['first_name', 'text'],
    ['last_name', 'text'],
  ],
};

/** After an event that changed a child's row: its version as the row now is. */
const versionOf = (sql: pg.ClientBase, childId: string, event: unknown) =>
  snapshotVersion(sql, CHILD_VERSIONS, 'children', [childId], event as RecordedEvent);

type WithContact = { clientId: string; contact: ContactDetails };

function insertContact(sql: pg.ClientBase, { clientId, contact }: WithContact) {
  return sql.query(
    `insert into contacts (id, client_id, seq, first_name, last_name, address, postcode, email, phone, dob)
     values ($1, $2, (select count(*) from contacts where client_id = $2), $3, $4, $5, $6, $7, $8, $9)`,
    [contact.id, clientId, ...contactColumns(contact), contact.dob],
  );
}

export const clientsProjection = defineProjection<ClientEvent>({
  name: 'clients',
  version: 4,
  migrations: ['003_clients.sql', '013_clients_erasure.sql', '054_child_versions.sql', '055_client_name_search.sql'],
  handlers: {
    ClientRegistered: async (sql, { data }) => {
      await sql.query('insert into clients (id, start_date) values ($1, $2)', [data.clientId, data.startDate]);
      await insertContact(sql, data);
    },
    ContactAdded: (sql, { data }) => insertContact(sql, data),
    ContactDetailsChanged: (sql, { data: { contact } }) =>
      sql.query(
        `update contacts set first_name = $2, last_name = $3, address = $4, postcode = $5, email = $6, phone = $7, dob = $8
          where id = $1`,
        [contact.id, ...contactColumns(contact), contact.dob],
      ),
    ChildAdded: async (sql, event) => {
      const { clientId, child } = event.data;
      await sql.query('insert into children (id, client_id, first_name, last_name, dob) values ($1, $2, $3, $4, $5)', [
        child.id,
        clientId,
        child.firstName,
        child.lastName,
        child.dob,
      ]);
      await versionOf(sql, child.id, event);
    },
    ChildDetailsChanged: async (sql, event) => {
      const { child } = event.data;
      await sql.query('update children set first_name = $2, last_name = $3, dob = $4 where id = $1', [
        child.id,
        child.firstName,
        child.lastName,
        child.dob,
      ]);
      await versionOf(sql, child.id, event);
    },
    ClientDeactivated: (sql, { data }) => sql.query('update clients set active = false where id = $1', [data.clientId]),
    ClientReactivated: (sql, { data }) => sql.query('update clients set active = true where id = $1', [data.clientId]),
    // The same values the family's events read as once its key is destroyed, so a rebuild matches.
    ClientErased: async (sql, { data: { clientId } }) => {
      await sql.query('update clients set active = false, erased = true where id = $1', [clientId]);
      await sql.query(
        `update contacts set first_name = $2, last_name = $2, address = $3, postcode = $2, email = $2, phone = '[]', dob = null
          where client_id = $1`,
        [clientId, ERASED, JSON.stringify([ERASED])],
      );
      await sql.query('update children set first_name = $2, last_name = $2, dob = null where client_id = $1', [
        clientId,
        ERASED,
      ]);
      // Every version too, as a rebuild (which reads every event of the family so) writes them.
      await sql.query('update child_versions set first_name = $2, last_name = $2 where client_id = $1', [
        clientId,
        ERASED,
      ]);
    },
  },
});
