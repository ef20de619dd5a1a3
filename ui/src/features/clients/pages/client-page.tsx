import { maySee } from '@agency/contracts/visibility';
import styled from '@emotion/styled';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { ErrorAlert } from '../../../components/alert';
import { Button } from '../../../components/button';
import { Checkbox } from '../../../components/checkbox';
import { type Erased, EraseSubject } from '../../../components/erase-subject';
import { HistoryPanel } from '../../../components/history-panel';
import { LoadState } from '../../../components/load-state';
import { PageHeading } from '../../../components/page-heading';
import { Panel, SectionHeading } from '../../../components/panel';
import { EmptyRow, Table, TableWrap, Td, Th, Tr } from '../../../components/table';
import { useRetentionPeriod } from '../../../lib/agency-details';
import { useCommandIds } from '../../../lib/command-id';
import { isOffice, useCurrentUser } from '../../../lib/current-user';
import { formatDate } from '../../../lib/format';
import { errorMessage } from '../../../lib/http';
import { useLoader } from '../../../lib/use-loader';
import { type Client, clientExportUrl, eraseClient, fetchClient, setClientActive } from '../api';
import { ContactCard } from '../components/contact-card';
import { FamilyAccessSection } from '../components/family-access-section';
import { FamilyOverview } from '../components/family-overview';
import { PencilLink } from '../components/pencil-link';

const Summary = styled.div({ display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: '2rem' });

const Fact = styled.p({ margin: 0 });

const Cards = styled.div({
  display: 'grid',
  gridTemplateColumns: 'repeat(auto-fill, minmax(min(100%, 18rem), 1fr))',
  gap: '1rem',
});

const SectionTop = styled.div({
  display: 'flex',
  alignItems: 'center',
  justifyContent: 'space-between',
  gap: '1rem',
  marginBottom: '1rem',
  '& h2': { margin: 0 },
});

const Muted = styled.p(({ theme }) => ({ color: theme.colors.muted, margin: 0 }));

const loadClient = (id: string, signal: AbortSignal) => fetchClient(id, signal);

function ActiveToggle({ client, onSaved }: { client: Client; onSaved: (active: boolean) => void }) {
  const commandIds = useCommandIds();
  const [saving, setSaving] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);

  const toggle = async (active: boolean) => {
    setSaving(true);
    setFailure(null);
    const action = `active:${active}`;
    try {
      const answer = await setClientActive({ id: client.id, active, commandId: commandIds.idFor(action) });
      commandIds.done(action);
      onSaved(answer?.client?.active ?? active);
    } catch (error) {
      commandIds.done(action, error);
      setFailure(errorMessage(error));
    } finally {
      setSaving(false);
    }
  };

  return (
    <div>
      <Checkbox
        id="client-active"
        label="Active"
        checked={client.active}
        disabled={saving}
        onChange={(event) => toggle(event.target.checked)}
      />
      {failure ? <ErrorAlert>{failure}</ErrorAlert> : null}
    </div>
  );
}

function ClientDetail({ client: loaded }: { client: Client }) {
  const user = useCurrentUser();
  const navigate = useNavigate();
  const admin = user.role === 'admin';
  // An erased family has nothing left to change (erased before, or just now): no edit control, even for an admin.
  const [erasedNow, setErasedNow] = useState(false);
  const edits = admin && !loaded.erased && !erasedNow;
  // A column the role may not see (a partner's or a tutor's answer has no dates of birth) is not drawn.
  const showsDob = maySee(user.role, 'dob');
  const childColumns = 1 + (showsDob ? 1 : 0) + (edits ? 1 : 0);
  const [active, setActive] = useState(loaded.active);
  const client = { ...loaded, active };

  return (
    <>
      <Panel aria-label="Client summary">
        <Summary>
          <Fact>
            <strong>Start date:</strong> {formatDate(client.startDate)}
          </Fact>
          {edits ? (
            <ActiveToggle client={client} onSaved={setActive} />
          ) : (
            <Fact>
              <strong>Status:</strong> {client.active ? 'Active' : 'Inactive'}
            </Fact>
          )}
        </Summary>
      </Panel>

      <Panel aria-labelledby="contacts-heading">
        <SectionTop>
          <SectionHeading id="contacts-heading">Contacts</SectionHeading>
          {edits ? (
            <Button type="button" onClick={() => navigate(`/contact/new/${client.id}`)}>
              Add Contact
            </Button>
          ) : null}
        </SectionTop>
        {client.contacts.length === 0 ? (
          <Muted>No contacts yet.</Muted>
        ) : (
          <Cards>
            {client.contacts.map((contact) => (
              <ContactCard key={contact.id} contact={contact} editable={edits} />
            ))}
          </Cards>
        )}
      </Panel>

      <Panel aria-labelledby="children-heading">
        <SectionTop>
          <SectionHeading id="children-heading">Children</SectionHeading>
          {edits ? (
            <Button type="button" onClick={() => navigate(`/child/new/${client.id}`)}>
              Add Child
            </Button>
          ) : null}
        </SectionTop>
        <TableWrap>
          <Table>
            <thead>
              <tr>
                <Th scope="col">Name</Th>
                {showsDob ? <Th scope="col">Date of Birth</Th> : null}
                {edits ? (
                  <Th scope="col">
                    <span className="visually-hidden">Edit</span>
                  </Th>
                ) : null}
              </tr>
            </thead>
            <tbody>
              {client.children.length === 0 ? (
                <tr>
                  <EmptyRow colSpan={childColumns}>No children yet.</EmptyRow>
                </tr>
              ) : (
                client.children.map((child) => {
                  const name = `${child.firstName} ${child.lastName}`;
                  return (
                    <Tr key={child.id}>
                      <Td>{name}</Td>
                      {showsDob ? <Td nowrap>{formatDate(child.dob)}</Td> : null}
                      {edits ? (
                        <Td numeric>
                          <PencilLink to={`/child/edit/${child.id}`} label={`Edit child ${name}`} />
                        </Td>
                      ) : null}
                    </Tr>
                  );
                })
              )}
            </tbody>
          </Table>
        </TableWrap>
      </Panel>
      {/* Its invoices, balance, lessons and tutors: the office's (a tutor reads no family's money). */}
      {isOffice(user) ? <FamilyOverview clientId={client.id} /> : null}
      {/* Its logins: an admin changes them, an auditor reads them, anyone else is shown nothing. */}
      {!client.erased && !erasedNow ? <FamilyAccessSection clientId={client.id} /> : null}
      {admin ? <PersonalData clientId={client.id} erased={client.erased} onErased={() => setErasedNow(true)} /> : null}
    </>
  );
}

/** An admin's subject-access export and erasure of the family's personal data. */
function PersonalData({
  clientId,
  erased: wasErased,
  onErased,
}: {
  clientId: string;
  erased: boolean;
  onErased: () => void;
}) {
  const [erased, setErased] = useState<Erased | null>(null);
  const until = erased?.kept?.billingDetailsUntil;
  const retention = useRetentionPeriod();
  return (
    <Panel aria-labelledby="personal-data-heading">
      <SectionHeading id="personal-data-heading">Personal Data</SectionHeading>
      <Fact>
        <a href={clientExportUrl(clientId)} download>
          Export
        </a>{' '}
        everything held about this family (a zip of export.json and a readable summary.pdf).
      </Fact>
      {wasErased && !erased ? (
        <Fact>
          <strong>Erased.</strong> This family's personal data was erased: nothing of it is left to change.
        </Fact>
      ) : erased ? (
        <Fact role="status">
          <strong>Erased.</strong>{' '}
          {until
            ? `Billing details on the family's issued invoices are kept until ${formatDate(until)}.`
            : 'No billing details are kept.'}{' '}
          {erased.kept?.moneyHistory}
        </Fact>
      ) : (
        <EraseSubject
          subject="family"
          kept={`Kept: lessons, invoices, payments, totals and references, without personal data; and the billing name and address on the family's issued invoices, for accounting, for ${retention} from each invoice's date, then destroyed.`}
          erase={(body) => eraseClient(clientId, body)}
          onErased={(answer) => {
            setErased(answer);
            onErased();
          }}
        />
      )}
    </Panel>
  );
}

export function ClientPage() {
  const { clientId = '' } = useParams();
  const { state, retry } = useLoader(loadClient, clientId);
  return (
    <>
      <PageHeading title="Client">
        <Link to="/clients">Back to clients</Link>
      </PageHeading>
      <LoadState state={state} onRetry={retry}>
        {(client) => <ClientDetail key={client.id} client={client} />}
      </LoadState>
      <HistoryPanel streamId={`client-${clientId}`} />
    </>
  );
}
