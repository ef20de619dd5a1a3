import { memo } from 'react';
import { Link } from 'react-router-dom';
import { EmptyRow, Table, TableWrap, Td, Th, Tr } from '../../../components/table';
import type { ClientListItem } from '../api';

/**
 * A page of the clients list; rows open the client when `onOpen` is given. Drawn again
 * only when the list (or `onOpen`) changes, not when the tutor options arrive.
 */
export const ClientsTable = memo(function ClientsTable({
  clients,
  onOpen,
}: {
  clients: ClientListItem[];
  onOpen?: (id: string) => void;
}) {
  return (
    <TableWrap>
      <Table>
        <thead>
          <tr>
            <Th scope="col">Name</Th>
            <Th scope="col">Address</Th>
            <Th scope="col">Phone</Th>
            <Th scope="col">Email</Th>
            <Th scope="col" style={{ textAlign: 'right' }}>
              Students
            </Th>
          </tr>
        </thead>
        <tbody>
          {clients.length === 0 ? (
            <tr>
              <EmptyRow colSpan={5}>No clients to show.</EmptyRow>
            </tr>
          ) : (
            clients.map((client) => (
              <Tr key={client.id} clickable={Boolean(onOpen)} onClick={onOpen ? () => onOpen(client.id) : undefined}>
                <Td>
                  {onOpen ? (
                    <Link to={`/client/${client.id}`} onClick={(event) => event.stopPropagation()}>
                      {client.name}
                    </Link>
                  ) : (
                    client.name
                  )}
                  {client.active === false ? <span className="cell-note cell-note-apart">(inactive)</span> : null}
                </Td>
                <Td>{client.address}</Td>
                <Td>{client.phone}</Td>
                <Td>{client.email}</Td>
                <Td numeric>{client.students}</Td>
              </Tr>
            ))
          )}
        </tbody>
      </Table>
    </TableWrap>
  );
});
