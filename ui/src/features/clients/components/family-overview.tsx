import styled from '@emotion/styled';
import { Link } from 'react-router-dom';
import { FamilyDocumentLink } from '../../../components/family-document-link';
import { LoadState } from '../../../components/load-state';
import { Panel, SectionHeading } from '../../../components/panel';
import { EmptyRow, Table, TableWrap, Td, Th, Tr } from '../../../components/table';
import { FAMILY_INVOICE_STATE_LABELS } from '../../../lib/family-invoices';
import { formatDate, formatMoney } from '../../../lib/format';
import { useLiveRefresh } from '../../../lib/live-updates';
import { useLoader } from '../../../lib/use-loader';
import { type FamilyOverviewAnswer, fetchFamilyOverview } from '../api';

const SectionTop = styled.div({
  display: 'flex',
  flexWrap: 'wrap',
  alignItems: 'baseline',
  justifyContent: 'space-between',
  gap: '0.5rem 1rem',
  marginBottom: '1rem',
  '& h2': { margin: 0 },
});

const Balance = styled.p({ margin: 0, fontSize: '1.1rem' });
const Muted = styled.span(({ theme }) => ({ color: theme.colors.muted }));
const Note = styled.p(({ theme }) => ({ color: theme.colors.muted, margin: '0.75rem 0 0' }));

const loadOverview = (clientId: string, signal: AbortSignal) => fetchFamilyOverview(clientId, signal);

/**
 * A family's page, for the office (admins, partners, auditors): what it owes in all and its
 * invoices (the PDFs linked, with paid and owed), the lessons lately delivered to its children and
 * its tutors. Lessons are told by date, child, tutor and length only: no price, rate, commission
 * or share (the answer holds none).
 */
export function FamilyOverview({ clientId }: { clientId: string }) {
  const { state, retry, refresh } = useLoader(loadOverview, clientId);
  // A payment, a credit note or a lesson recorded elsewhere shows without a reload.
  useLiveRefresh(['family-invoices', 'lessons', 'engagements'], refresh);
  return (
    <LoadState state={state} onRetry={retry}>
      {(overview) => (
        <>
          <FamilyInvoices clientId={clientId} overview={overview} />
          <FamilyLessons lessons={overview.lessons} />
          <FamilyTutors tutors={overview.tutors} />
        </>
      )}
    </LoadState>
  );
}

function FamilyInvoices({ clientId, overview }: { clientId: string; overview: FamilyOverviewAnswer }) {
  const { invoices, invoiceCount, owed } = overview;
  const ledger = `/family-invoices?client=${encodeURIComponent(clientId)}`;
  return (
    <Panel aria-labelledby="invoices-heading">
      <SectionTop>
        <SectionHeading id="invoices-heading">Invoices</SectionHeading>
        <Balance data-testid="family-balance">
          <strong>Owed:</strong> £{formatMoney(owed)}
        </Balance>
      </SectionTop>
      <TableWrap>
        <Table>
          <caption className="visually-hidden">The family's invoices, newest first</caption>
          <thead>
            <tr>
              <Th scope="col">Date</Th>
              <Th scope="col">Invoice</Th>
              <Th scope="col">Total</Th>
              <Th scope="col">Paid</Th>
              <Th scope="col">Owed</Th>
              <Th scope="col">State</Th>
            </tr>
          </thead>
          <tbody>
            {invoices.length === 0 ? (
              <tr>
                <EmptyRow colSpan={6}>No invoices yet.</EmptyRow>
              </tr>
            ) : (
              invoices.map((invoice) => (
                <Tr key={invoice.id}>
                  <Td nowrap>{formatDate(invoice.date)}</Td>
                  <Td>
                    <FamilyDocumentLink id={invoice.id} reference={invoice.reference} />{' '}
                    <Muted>({invoice.billedFor})</Muted>
                  </Td>
                  <Td numeric>{formatMoney(invoice.total)}</Td>
                  <Td numeric>{formatMoney(invoice.paid)}</Td>
                  <Td numeric>{formatMoney(invoice.owed)}</Td>
                  <Td>
                    {FAMILY_INVOICE_STATE_LABELS[invoice.state]}
                    {invoice.creditNote ? (
                      <>
                        {' '}
                        <Muted>by</Muted>{' '}
                        <FamilyDocumentLink id={invoice.creditNote.id} reference={invoice.creditNote.reference} />
                      </>
                    ) : null}
                  </Td>
                </Tr>
              ))
            )}
          </tbody>
        </Table>
      </TableWrap>
      <Note>
        {invoiceCount > invoices.length ? `The latest ${invoices.length} of ${invoiceCount} invoices. ` : null}
        <Link to={ledger}>Credit notes and payments in the family invoices ledger</Link>
      </Note>
    </Panel>
  );
}

function FamilyLessons({ lessons }: { lessons: FamilyOverviewAnswer['lessons'] }) {
  return (
    <Panel aria-labelledby="lessons-heading">
      <SectionHeading id="lessons-heading">Recent Lessons</SectionHeading>
      <TableWrap>
        <Table>
          <caption className="visually-hidden">The latest lessons delivered to the family's children</caption>
          <thead>
            <tr>
              <Th scope="col">Date</Th>
              <Th scope="col">Child</Th>
              <Th scope="col">Tutor</Th>
              <Th scope="col">Duration</Th>
            </tr>
          </thead>
          <tbody>
            {lessons.length === 0 ? (
              <tr>
                <EmptyRow colSpan={4}>No lessons delivered yet.</EmptyRow>
              </tr>
            ) : (
              lessons.map((lesson) => (
                <Tr key={lesson.id}>
                  <Td nowrap>{formatDate(lesson.date)}</Td>
                  <Td>{lesson.child}</Td>
                  <Td>{lesson.tutor}</Td>
                  <Td numeric>{lesson.duration} h</Td>
                </Tr>
              ))
            )}
          </tbody>
        </Table>
      </TableWrap>
    </Panel>
  );
}

function FamilyTutors({ tutors }: { tutors: FamilyOverviewAnswer['tutors'] }) {
  return (
    <Panel aria-labelledby="tutors-heading">
      <SectionHeading id="tutors-heading">Tutors</SectionHeading>
      <TableWrap>
        <Table>
          <caption className="visually-hidden">The family's tutors</caption>
          <thead>
            <tr>
              <Th scope="col">Tutor</Th>
              <Th scope="col">Children</Th>
              <Th scope="col">Subjects</Th>
              <Th scope="col">Since</Th>
              <Th scope="col">Status</Th>
            </tr>
          </thead>
          <tbody>
            {tutors.length === 0 ? (
              <tr>
                <EmptyRow colSpan={5}>No tutors yet.</EmptyRow>
              </tr>
            ) : (
              tutors.map((tutor) => (
                <Tr key={tutor.id}>
                  <Td>
                    <Link to={`/tutor/${tutor.id}`}>{tutor.name}</Link>
                  </Td>
                  <Td>{tutor.children.join(', ')}</Td>
                  <Td>{tutor.subjects.join(', ')}</Td>
                  <Td nowrap>{formatDate(tutor.since)}</Td>
                  <Td>{tutor.current ? 'Current' : 'Ended'}</Td>
                </Tr>
              ))
            )}
          </tbody>
        </Table>
      </TableWrap>
    </Panel>
  );
}
