import styled from '@emotion/styled';
import { useNavigate } from 'react-router-dom';
import { EmptyRow, Table, TableWrap, Td, Th, Tr } from '../../../components/table';
import type { CreditingRegistration, Registration } from '../api';
import { creditingNote, movingNote } from '../workflow-status';

const Allergy = styled.strong(({ theme }) => ({ color: theme.colors.danger }));

/**
 * The register fits its page rather than scroll: headings may wrap, an e-mail address breaks
 * (after its @ first), and allergies keep room to be read whole (at 1280 px beside the menu).
 */
const RegisterWrap = styled(TableWrap)({
  '& th': { whiteSpace: 'normal' },
  '& .register-email': { overflowWrap: 'anywhere', minWidth: '7rem' },
  '& .register-allergies': { minWidth: '7.5rem', overflowWrap: 'anywhere' },
});

/** An e-mail address that may break after its @ before anywhere else. */
function BreakableEmail({ email }: { email: string }) {
  const at = email.indexOf('@');
  if (at < 0) return <>{email}</>;
  return (
    <>
      {email.slice(0, at)}
      <wbr />
      {email.slice(at)}
    </>
  );
}
const Waiting = styled.span(({ theme }) => ({ color: theme.colors.muted, fontStyle: 'italic' }));

const tick = (yes: boolean, what: string) =>
  yes ? (
    <span role="img" aria-label={what}>
      ✓
    </span>
  ) : (
    <span className="visually-hidden">Not {what.toLowerCase()}</span>
  );

/**
 * One row per child: Child's Name, Parent's Name, Email, Phone, School, Year, Allergies (prominent:
 * this is the register for the day), and on the event's screen ticks for invoiced and paid, the
 * waiting list and a move under way marked; a row opens its registration. Deleted registrations
 * whose invoice is still being credited come last, saying so.
 */
export function RegistrationsTable({
  registrations,
  crediting = [],
  caption,
  billing = false,
}: {
  registrations: Registration[];
  crediting?: CreditingRegistration[];
  caption: string;
  billing?: boolean;
}) {
  const navigate = useNavigate();
  const rows = registrations.flatMap((registration) =>
    registration.children.map((child, index) => ({ registration, child, key: `${registration.id}-${index}` })),
  );
  const columns = billing ? 9 : 7;
  return (
    // Focusable, so a keyboard can scroll a wide register.
    <RegisterWrap tabIndex={0} role="region" aria-label={caption}>
      <Table>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <Th scope="col">Child's Name</Th>
            <Th scope="col">Parent's Name</Th>
            <Th scope="col">Email</Th>
            <Th scope="col">Phone</Th>
            <Th scope="col">School</Th>
            <Th scope="col">Year</Th>
            <Th scope="col" className="register-allergies">
              Allergies
            </Th>
            {billing ? <Th scope="col">Invoiced</Th> : null}
            {billing ? <Th scope="col">Paid</Th> : null}
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 && crediting.length === 0 ? (
            <tr>
              <EmptyRow colSpan={columns}>No registrations</EmptyRow>
            </tr>
          ) : (
            rows.map(({ registration, child, key }) => (
              <Tr
                key={key}
                clickable={billing}
                onClick={billing ? () => navigate(`/workshops/${registration.eventId}/${registration.id}`) : undefined}
              >
                <Td>
                  {billing ? (
                    <a
                      href={`/workshops/${registration.eventId}/${registration.id}`}
                      onClick={(event) => event.preventDefault()}
                    >
                      {child.firstName} {child.lastName}
                    </a>
                  ) : (
                    `${child.firstName} ${child.lastName}`
                  )}
                  {registration.status === 'waitlisted' ? <Waiting> (waiting list)</Waiting> : null}
                  {registration.moving ? <Waiting> ({movingNote(registration)})</Waiting> : null}
                </Td>
                <Td>
                  {registration.contact.firstName} {registration.contact.lastName}
                </Td>
                <Td className="register-email">
                  <BreakableEmail email={registration.contact.email} />
                </Td>
                <Td nowrap>{registration.contact.phone}</Td>
                <Td>{child.school}</Td>
                <Td>{child.schoolYear}</Td>
                <Td className="register-allergies">{child.allergies ? <Allergy>{child.allergies}</Allergy> : null}</Td>
                {billing ? <Td>{tick(registration.invoiceRef !== null, 'Invoiced')}</Td> : null}
                {billing ? <Td>{tick(registration.paid, 'Paid')}</Td> : null}
              </Tr>
            ))
          )}
          {crediting.map((registration) => (
            <Tr key={`deleted-${registration.id}`}>
              <Td>
                <s>{registration.children.join(', ')}</s>
              </Td>
              <Td>{registration.parent}</Td>
              <Td colSpan={columns - 2}>
                <Waiting>{creditingNote(registration)}</Waiting>
              </Td>
            </Tr>
          ))}
        </tbody>
      </Table>
    </RegisterWrap>
  );
}
