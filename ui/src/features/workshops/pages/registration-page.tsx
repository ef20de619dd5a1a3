import { childrenText, placesLeftText } from '@agency/domain/workshop/places';
import styled from '@emotion/styled';
import { useState } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { ErrorAlert } from '../../../components/alert';
import { Button, ButtonRow } from '../../../components/button';
import { ConfirmAction } from '../../../components/confirm-action';
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
  type WorkshopEvent,
} from '../api';
import { PaymentForm } from '../components/payment-form';
import { useAction } from '../use-action';

// Both columns may narrow on a phone (a long label or address wraps) rather than widen the page.
const Facts = styled.dl({
  display: 'grid',
  gridTemplateColumns: 'minmax(0, max-content) minmax(0, 1fr)',
  gap: '0.35rem 1rem',
  margin: 0,
  overflowWrap: 'anywhere',
});
const Allergy = styled.strong(({ theme }) => ({ color: theme.colors.danger }));

const loadRegistration = (ids: { eventId: string; registrationId: string }, signal: AbortSignal) =>
  fetchRegistration(ids, signal);
const loadAlternatives = (eventId: string, signal: AbortSignal) => fetchAlternatives(eventId, signal);

/**
 * Where a registration can move: a booking with places needs room for all of them (the server
 * refuses it otherwise); one on the waiting list may go to any event with room, where it gets
 * places if all its children fit and waits otherwise.
 */
const destinations = (registration: RegistrationDetails, events: WorkshopEvent[] = []) =>
  registration.status === 'waitlisted'
    ? events
    : events.filter((event) => event.placesLeft >= registration.children.length);

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

const childNames = (registration: RegistrationDetails) =>
  registration.children.map((child) => child.firstName).join(', ') || 'The booking';

/** What deleting a registration does, said before it is done. */
function DeleteWords({ registration, event }: { registration: RegistrationDetails; event: WorkshopEvent }) {
  const many = registration.children.length !== 1;
  const loses =
    registration.status === 'waitlisted'
      ? `${many ? 'leave' : 'leaves'} the waiting list`
      : `${many ? 'lose their places' : 'loses the place'}`;
  return (
    <>
      <p>
        {childNames(registration)} {loses} at {event.description}, {formatDateTime(event.dateTime)}.
      </p>
      <p>
        {registration.contact.firstName} {registration.contact.lastName} is e-mailed to say the booking is cancelled.
        {registration.invoiceRef
          ? ` Invoice ${registration.invoiceRef}, which billed it, is credited: a credit note is e-mailed too.`
          : ''}
      </p>
    </>
  );
}

/** What moving a registration to `to` does, said before it is done. */
function MoveWords({ registration, to }: { registration: RegistrationDetails; to: WorkshopEvent }) {
  const places = registration.children.length;
  const fits = places <= to.placesLeft;
  return (
    <>
      <p>
        {placesLeftText(to.placesLeft)} there.{' '}
        {fits
          ? `The booking of ${childrenText(places)} takes ${places === 1 ? 'one of them' : `${places} of them`}${registration.status === 'waitlisted' ? ', off the waiting list' : ''}.`
          : `The booking of ${childrenText(places)} goes on its waiting list: a booking takes places for all its children or none.`}
      </p>
      <p>
        {registration.contact.firstName} {registration.contact.lastName} is e-mailed to say where the booking moved.
      </p>
    </>
  );
}

/**
 * workshops/{eventId}/{registrationId}: the registration, Create Invoice (a booking with a place,
 * disabled once invoiced), Move to … (upcoming events with room for it), Delete (then back), and
 * Give a Place from the waiting list. Delete and each move ask first, saying what will happen.
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
                {/* A booking on the waiting list has no place to pay for: it is invoiced once it has one. */}
                {registration.status === 'waitlisted' ? null : (
                  <Button
                    type="button"
                    disabled={registration.invoiceRef !== null}
                    onClick={() =>
                      navigate(`/workshops/invoice?email=${encodeURIComponent(registration.contact.email)}`)
                    }
                  >
                    Create Invoice
                  </Button>
                )}
                {registration.status === 'waitlisted' ? (
                  <Button type="button" variant="secondary" disabled={place.busy} onClick={() => place.run()}>
                    Give a Place
                  </Button>
                ) : null}
                <ConfirmAction
                  label="Delete"
                  title="Delete this registration?"
                  confirmLabel="Delete"
                  disabled={remove.busy}
                  onConfirm={() => remove.run()}
                >
                  <DeleteWords registration={registration} event={event} />
                </ConfirmAction>
              </ButtonRow>
              {registration.status === 'waitlisted' ? (
                <p>On the waiting list: it is invoiced once it has a place.</p>
              ) : null}
              {registration.invoiceId && !registration.paid ? (
                <PaymentForm invoiceId={registration.invoiceId} onPaid={retry} />
              ) : null}
              <SectionHeading>Move to …</SectionHeading>
              <ButtonRow>
                {destinations(registration, alternatives.state.data).map((other) => (
                  <ConfirmAction
                    key={other.id}
                    label={`${other.description}, ${formatDateTime(other.dateTime)}`}
                    title={`Move this registration to ${other.description}, ${formatDateTime(other.dateTime)}?`}
                    confirmLabel="Move"
                    disabled={move.busy}
                    onConfirm={() => move.run(other.id)}
                  >
                    <MoveWords registration={registration} to={other} />
                  </ConfirmAction>
                ))}
                {alternatives.state.data && destinations(registration, alternatives.state.data).length === 0 ? (
                  <p>No other upcoming event has room for this booking.</p>
                ) : null}
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
