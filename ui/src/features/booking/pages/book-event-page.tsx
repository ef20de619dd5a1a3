import { LIMITS } from '@agency/contracts';
import styled from '@emotion/styled';
import { useState } from 'react';
import { FormProvider, useFieldArray } from 'react-hook-form';
import { Link, useParams } from 'react-router-dom';
import { Button, ButtonRow } from '../../../components/button';
import { ContactDetailsFields } from '../../../components/contact-fields';
import { FormActions } from '../../../components/form-actions';
import { FieldRow, Fieldset, FormPanel } from '../../../components/form-layout';
import { TextField } from '../../../components/text-field';
import {
  type ContactFields,
  cleanContactFields,
  contactFieldName,
  toContactFields,
} from '../../../lib/contact-form-values';
import { formatDateTime } from '../../../lib/format';
import { useCommandForm } from '../../../lib/use-command-form';
import { useLoader } from '../../../lib/use-loader';
import { required } from '../../../lib/validation';
import { book, fetchOpenEvents } from '../api';
import { PublicPage } from '../components/public-page';

type Child = { firstName: string; lastName: string; school: string; schoolYear: string; allergies: string };
type BookingValues = ContactFields & { children: Child[]; comments: string; website: string };

const blankChild: Child = { firstName: '', lastName: '', school: '', schoolYear: '', allergies: '' };

/** Kept out of sight and out of the tab order: only a bot fills it in. */
const Honeypot = styled.div({
  position: 'absolute',
  left: '-10000px',
  width: '1px',
  height: '1px',
  overflow: 'hidden',
});

const loadOpenEvents = (_: 'open', signal: AbortSignal) => fetchOpenEvents(signal);

/** `children.0.firstName` stays; the contact's fields lose their `contact.` prefix. */
const fieldName = (field: string) => (field.startsWith('children') ? field : contactFieldName(field)) as never;

/** /book/{eventId}: a parent's booking, with the contact form's rules. No login. */
export function BookEventPage() {
  const { eventId = '' } = useParams();
  const events = useLoader(loadOpenEvents, 'open');
  const event = events.state.data?.find((e) => e.id === eventId);
  const [booked, setBooked] = useState<{ held: boolean; email: string } | null>(null);
  const { form, onSubmit, failure } = useCommandForm<BookingValues>({
    defaultValues: { ...toContactFields(), children: [blankChild], comments: '', website: '' },
    save: async (values, commandId) => {
      const contact = cleanContactFields(values);
      const registration = await book(eventId, {
        commandId,
        contact: { ...contact, phone: contact.phone[0]?.number ?? '' },
        children: values.children,
        comments: values.comments,
        website: values.website,
      });
      setBooked({ held: registration.held, email: contact.email });
    },
    fieldName,
  });
  const children = useFieldArray({ control: form.control, name: 'children' });
  const {
    register,
    formState: { errors, isSubmitting },
  } = form;
  const title = event ? `Book: ${event.description}` : 'Book a Workshop';
  if (booked) {
    return (
      <PublicPage title={title}>
        <p role="status">
          {booked.held
            ? `Almost done: we have e-mailed a link to ${booked.email}. Open it within ${LIMITS.bookingHoldMinutes} minutes to confirm your booking; the places are held for you until then.`
            : `The workshop is full. We have e-mailed a link to ${booked.email}: open it within ${LIMITS.bookingHoldMinutes} minutes to join the waiting list.`}
        </p>
        <Link to="/book">See other workshops</Link>
      </PublicPage>
    );
  }
  return (
    <PublicPage title={title}>
      {event ? (
        <p>
          {formatDateTime(event.dateTime)}
          {event.location ? ` · ${event.location}` : ''} ·{' '}
          {event.placesLeft > 0 ? `${event.placesLeft} places left` : 'Full: you will be on the waiting list'}
        </p>
      ) : null}
      <FormProvider {...form}>
        <FormPanel noValidate onSubmit={onSubmit} aria-label="Booking">
          <h2>Parent</h2>
          <ContactDetailsFields addressAndPhoneRequired autoComplete />
          <h2>Children</h2>
          {children.fields.map((field, index) => (
            <Fieldset key={field.id}>
              <legend>Child {index + 1}</legend>
              <FieldRow>
                <TextField
                  id={`child-${index}-firstName`}
                  label="First Name"
                  required
                  error={errors.children?.[index]?.firstName?.message}
                  {...register(`children.${index}.firstName`, { validate: required('First name is required') })}
                />
                <TextField
                  id={`child-${index}-lastName`}
                  label="Last Name"
                  required
                  error={errors.children?.[index]?.lastName?.message}
                  {...register(`children.${index}.lastName`, { validate: required('Last name is required') })}
                />
              </FieldRow>
              <FieldRow>
                <TextField id={`child-${index}-school`} label="School" {...register(`children.${index}.school`)} />
                <TextField
                  id={`child-${index}-schoolYear`}
                  label="School Year"
                  {...register(`children.${index}.schoolYear`)}
                />
              </FieldRow>
              <TextField
                id={`child-${index}-allergies`}
                label="Allergies"
                error={errors.children?.[index]?.allergies?.message}
                {...register(`children.${index}.allergies`)}
              />
              {children.fields.length > 1 ? (
                <Button type="button" variant="secondary" onClick={() => children.remove(index)}>
                  Remove Child {index + 1}
                </Button>
              ) : null}
            </Fieldset>
          ))}
          <ButtonRow>
            <Button type="button" variant="secondary" onClick={() => children.append(blankChild)}>
              Add Another Child
            </Button>
          </ButtonRow>
          <TextField id="comments" label="Comments" error={errors.comments?.message} {...register('comments')} />
          <Honeypot aria-hidden="true">
            <label htmlFor="website">Leave this empty</label>
            <input id="website" tabIndex={-1} autoComplete="off" {...register('website')} />
          </Honeypot>
          <FormActions
            failure={failure}
            submitting={isSubmitting}
            submitLabel="Book"
            onCancel={() => window.history.back()}
          />
        </FormPanel>
      </FormProvider>
    </PublicPage>
  );
}
