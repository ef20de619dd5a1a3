import styled from '@emotion/styled';
import { useState } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { ErrorAlert } from '../../../components/alert';
import { Button, ButtonRow } from '../../../components/button';
import { type Erased, EraseSubject } from '../../../components/erase-subject';
import { LoadState } from '../../../components/load-state';
import { PageHeading } from '../../../components/page-heading';
import { Panel, SectionHeading } from '../../../components/panel';
import { useRetentionPeriod } from '../../../lib/agency-details';
import { useCurrentUser } from '../../../lib/current-user';
import { formatDate, formatDateTime } from '../../../lib/format';
import { useLoader } from '../../../lib/use-loader';
import {
  deleteRegistration,
  eraseRegistration,
  fetchAlternatives,
  fetchRegistration,
  invoiceDocumentUrl,
  moveRegistration,
  placeRegistration,
  type RegistrationDetails,
  registrationExportUrl,
} from '../api';
import { PaymentForm } from '../components/payment-form';
import { useAction } from '../use-action';

const Facts = styled.dl({ display: 'grid', gridTemplateColumns: 'max-content 1fr', gap: '0.35rem 1rem', margin: 0 });
const Allergy = styled.strong(({ theme }) => ({ color: theme.colors.danger }));

const loadRegistration = (ids: { eventId: string; registrationId: string }, signal: AbortSignal) =>
  fetchRegistration(ids, signal);
const loadAlternatives = (eventId: string, signal: AbortSignal) => fetchAlternatives(eventId, signal);

function Details({ registration }: { registration: RegistrationDetails }) {
  const { contact } = registration;
  return (
    <Panel aria-label="Parent">
      <Facts>
        <dt>Parent</dt>
        <dd>
          {contact.firstName} {contact.lastName}
        </dd>
        <dt>Address</dt>
        <dd>{contact.address.join(', ')}</dd>
        <dt>Postcode</dt>
        <dd>{contact.postcode}</dd>
        <dt>Email</dt>
        <dd>{contact.email}</dd>
        <dt>Phone</dt>
        <dd>{contact.phone}</dd>
        {registration.comments ? (
          <>
            <dt>Note</dt>
            <dd>{registration.comments}</dd>
          </>
        ) : null}
        <dt>Invoice Reference</dt>
        <dd>
          {registration.invoiceId && registration.invoiceRef ? (
            <a href={invoiceDocumentUrl(registration.invoiceId)} target="_blank" rel="noopener">
              {registration.invoiceRef}
            </a>
          ) : (
            'Not invoiced'
          )}
          {registration.paid ? ' (paid)' : ''}
        </dd>
        <dt>Status</dt>
        <dd>
          {registration.deleted ? 'Deleted' : registration.status === 'waitlisted' ? 'Waiting list' : 'Registered'}
        </dd>
      </Facts>
      <SectionHeading>Children</SectionHeading>
      <ul>
        {registration.children.map((child, index) => (
          <li key={`${child.firstName}-${index}`}>
            {child.firstName} {child.lastName}
            {child.school ? `, ${child.school}` : ''}
            {child.schoolYear ? `, year ${child.schoolYear}` : ''}
            {child.allergies ? (
              <>
                {' '}
                — allergies: <Allergy>{child.allergies}</Allergy>
              </>
            ) : null}
          </li>
        ))}
      </ul>
      <SectionHeading>Other Events</SectionHeading>
      {registration.other.length === 0 ? (
        <p>None</p>
      ) : (
        <ul>
          {registration.other.map((other) => (
            <li key={other.eventId}>
              {other.event}, {formatDateTime(other.date)}
            </li>
          ))}
        </ul>
      )}
    </Panel>
  );
}

/**
 * A booking of no known family is its own data subject: an admin exports what is held about it
 * and erases it (a family's booking is exported and erased with the family, on the client's page).
 */
function PersonalData({ registration, onErased }: { registration: RegistrationDetails; onErased: () => void }) {
  const [erased, setErased] = useState<Erased | null>(null);
  const retention = useRetentionPeriod();
  const until = erased?.kept?.billingDetailsUntil;
  return (
    <Panel aria-labelledby="personal-data-heading">
      <SectionHeading id="personal-data-heading">Personal Data</SectionHeading>
      <p>
        <a href={registrationExportUrl(registration.id)} download>
          Export
        </a>{' '}
        everything held about this booking (a zip of export.json and a readable summary.pdf).
      </p>
      {erased || registration.contact.email === 'Erased' ? (
        <p role="status">
          <strong>Erased.</strong> {until ? `Billing details on its invoice are kept until ${formatDate(until)}.` : ''}
        </p>
      ) : (
        <EraseSubject
          subject="booking"
          kept={`Kept: the booking's places, invoice, payments, totals and references, without personal data; and the billing name and address on its issued invoice, for accounting, for ${retention} from the invoice's date, then destroyed.`}
          erase={(body) => eraseRegistration(registration.id, body)}
          onErased={(answer) => {
            setErased(answer);
            onErased();
          }}
        />
      )}
    </Panel>
  );
}

/**
 * workshops/{eventId}/{registrationId}: the registration, Create Invoice (disabled once invoiced),
 * Move to … (upcoming events with room), Delete (then back), and Give a Place from the waiting list.
 */
export function RegistrationPage() {
  const { eventId = '', registrationId = '' } = useParams();
  const navigate = useNavigate();
  const admin = useCurrentUser().role === 'admin';
  const { state, retry, refresh } = useLoader(loadRegistration, { eventId, registrationId });
  const alternatives = useLoader(loadAlternatives, eventId);
  const remove = useAction(
    () => 'delete',
    async (commandId) => {
      await deleteRegistration({ eventId, registrationId, commandId });
      navigate(-1);
    },
  );
  const move = useAction(
    (toEventId: string) => `move:${toEventId}`,
    async (commandId, toEventId: string) => {
      await moveRegistration({ fromEventId: eventId, registrationId, toEventId, commandId });
      navigate(`/workshops/${toEventId}/${registrationId}`, { replace: true });
    },
  );
  const place = useAction(
    () => 'place',
    async (commandId) => {
      await placeRegistration({ eventId, registrationId, commandId });
      retry();
    },
  );
  const failure = remove.failure ?? move.failure ?? place.failure;
  return (
    <LoadState state={state} onRetry={retry}>
      {({ event, registration }) => (
        <>
          <PageHeading title={`Registration: ${event.description}, ${formatDateTime(event.dateTime)}`} />
          <Details registration={registration} />
          {failure ? <ErrorAlert>{failure}</ErrorAlert> : null}
          {admin && !registration.deleted ? (
            <>
              <ButtonRow>
                <Button
                  type="button"
                  disabled={registration.invoiceRef !== null}
                  onClick={() => navigate(`/workshops/invoice?email=${encodeURIComponent(registration.contact.email)}`)}
                >
                  Create Invoice
                </Button>
                {registration.status === 'waitlisted' ? (
                  <Button type="button" variant="secondary" disabled={place.busy} onClick={() => place.run()}>
                    Give a Place
                  </Button>
                ) : null}
                <Button type="button" variant="secondary" disabled={remove.busy} onClick={() => remove.run()}>
                  Delete
                </Button>
              </ButtonRow>
              {registration.invoiceId && !registration.paid ? (
                <PaymentForm invoiceId={registration.invoiceId} onPaid={retry} />
              ) : null}
              <SectionHeading>Move to …</SectionHeading>
              <ButtonRow>
                {(alternatives.state.data ?? []).map((other) => (
                  <Button
                    key={other.id}
                    type="button"
                    variant="secondary"
                    disabled={move.busy}
                    onClick={() => move.run(other.id)}
                  >
                    {other.description}, {formatDateTime(other.dateTime)}
                  </Button>
                ))}
                {alternatives.state.data?.length === 0 ? <p>No other upcoming event has room.</p> : null}
              </ButtonRow>
            </>
          ) : null}
          {admin && registration.clientId === null ? (
            <PersonalData registration={registration} onErased={refresh} />
          ) : null}
        </>
      )}
    </LoadState>
  );
}
