import type { ChildDetails, ContactDetails } from '@agency/contracts';
import type pg from 'pg';
import { contactColumns } from './contact-columns';
import type { Projection } from './projection';

type WithContact = { clientId: string; contact: ContactDetails };
type WithChild = { clientId: string; child: ChildDetails };

function insertContact(sql: pg.ClientBase, { clientId, contact }: WithContact) {
  return sql.query(
    `insert into contacts (id, client_id, seq, first_name, last_name, address, postcode, email, phone, dob)
     values ($1, $2, (select count(*) from contacts where client_id = $2), $3, $4, $5, $6, $7, $8, $9)`,
    [contact.id, clientId, ...contactColumns(contact), contact.dob],
  );
}

export const clientsProjection: Projection = {
  name: 'clients',
  version: 1,
  migrations: ['003_clients.sql'],
  handlers: {
    ClientRegistered: async (sql, { data }) => {
      const event = data as WithContact & { startDate: string };
      await sql.query('insert into clients (id, start_date) values ($1, $2)', [event.clientId, event.startDate]);
      await insertContact(sql, event);
    },
    ContactAdded: (sql, { data }) => insertContact(sql, data as WithContact),
    ContactDetailsChanged: (sql, { data }) => {
      const { contact } = data as WithContact;
      return sql.query(
        `update contacts set first_name = $2, last_name = $3, address = $4, postcode = $5, email = $6, phone = $7, dob = $8
          where id = $1`,
        [contact.id, ...contactColumns(contact), contact.dob],
      );
    },
    ChildAdded: (sql, { data }) => {
      const { clientId, child } = data as WithChild;
      return sql.query('insert into children (id, client_id, first_name, last_name, dob) values ($1, $2, $3, $4, $5)', [
        child.id,
        clientId,
        child.firstName,
        child.lastName,
        child.dob,
      ]);
    },
    ChildDetailsChanged: (sql, { data }) => {
      const { child } = data as WithChild;
      return sql.query('update children set first_name = $2, last_name = $3, dob = $4 where id = $1', [
        child.id,
        child.firstName,
        child.lastName,
        child.dob,
      ]);
    },
    ClientDeactivated: (sql, { data }) =>
      sql.query('update clients set active = false where id = $1', [(data as { clientId: string }).clientId]),
    ClientReactivated: (sql, { data }) =>
      sql.query('update clients set active = true where id = $1', [(data as { clientId: string }).clientId]),
  },
};
