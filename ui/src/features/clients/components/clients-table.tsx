import { memo } from 'react';
import { Link } from 'react-router-dom';
import { PersonHeaders, SortHeader, type SortOrder } from '../../../components/list-controls';
import { EmptyRow, Table, TableWrap, Td, Tr } from '../../../components/table';
import type { ClientListItem, ClientSort } from '../api';

/**
 * A page of the clients list; rows open the client when `onOpen` is given. Drawn again
 * only when the list (or `onOpen`) changes, not when the tutor options arrive.
 */
export const ClientsTable = memo(function ClientsTable({
  clients,
  onOpen,
  sort,
  order,
  onSort,
  searched,
}: {
  clients: ClientListItem[];
  onOpen?: (id: string) => void;
  /** The order the list is in (Name, Email and Students sort it), and the choice of another. */
  sort: ClientSort;
  order: SortOrder;
  onSort: (column: ClientSort) => void;
  searched: boolean;
}) {
  const sorted = { sort, order };
  return (
    <TableWrap>
      <Table>
        <thead>
          <tr>
            <PersonHeaders sorted={sorted} onSort={onSort} />
            <SortHeader
              column="students"
              label="Students"
              sorted={sorted}
              onSort={onSort}
              style={{ textAlign: 'right' }}
            />
          </tr>
        </thead>
        <tbody>
          {clients.length === 0 ? (
            <tr>
              <EmptyRow colSpan={5}>{searched ? 'No clients of that name.' : 'No clients to show.'}</EmptyRow>
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
