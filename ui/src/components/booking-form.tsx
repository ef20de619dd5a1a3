import { bookingOutlook } from '@agency/domain/workshop/places';
import styled from '@emotion/styled';
import type { ReactNode } from 'react';
import { type Control, FormProvider, useFieldArray, useWatch } from 'react-hook-form';
import { type ContactFields, cleanContactFields, contactFieldName, toContactFields } from '../lib/contact-form-values';
import { useCommandForm } from '../lib/use-command-form';
import { required } from '../lib/validation';
import { Button, ButtonRow } from './button';
import { ContactDetailsFields } from './contact-fields';
import { FormActions } from './form-actions';
import { FieldRow, Fieldset, FormPanel } from './form-layout';
import { TextField } from './text-field';

export type BookingChild = {
  firstName: string;
  lastName: string;
  school: string;
  schoolYear: string;
  allergies: string;
};
/** `website` is the public form's honeypot; a form without one leaves it empty. */
export type BookingValues = ContactFields & { children: BookingChild[]; comments: string; website: string };

/** A booking as both booking routes take it: the contact with one phone number. */
export type Booking = {
  contact: { firstName: string; lastName: string; address: string[]; postcode: string; email: string; phone: string };
  children: BookingChild[];
  comments: string;
};

const blankChild: BookingChild = { firstName: '', lastName: '', school: '', schoolYear: '', allergies: '' };

/** Text trimmed, blank address lines dropped, the first phone number given. */
export function bookingOf(values: BookingValues): Booking {
  const contact = cleanContactFields(values);
  return {
    contact: { ...contact, phone: contact.phone[0]?.number ?? '' },
    children: values.children,
    comments: values.comments,
  };
}

/** `children.0.firstName` stays; the contact's fields lose their `contact.` prefix. */
const fieldName = (field: string) => (field.startsWith('children') ? field : contactFieldName(field)) as never;

/** A booking form's state: one command per booking sent, the server's field messages on the fields. */
export function useBookingForm(save: (values: BookingValues, commandId: string) => Promise<void>) {
  return useCommandForm<BookingValues>({
    defaultValues: { ...toContactFields(), children: [blankChild], comments: '', website: '' },
    save,
    fieldName,
  });
}

/** An allergies field is described by its privacy line (public form) and by its error, if any. */
const allergiesDescription = (index: number, privacy: boolean, error: unknown) =>
  [privacy ? `child-${index}-allergies-privacy` : '', error ? `child-${index}-allergies-error` : '']
    .filter(Boolean)
    .join(' ') || undefined;

/** Kept out of sight and out of the tab order: only a bot fills it in. */
const Honeypot = styled.div({
  position: 'absolute',
  left: '-10000px',
  width: '1px',
  height: '1px',
  overflow: 'hidden',
});

const Outlook = styled.p<{ placed: boolean }>(({ theme, placed }) => ({
  margin: '1.5rem 0 0',
  padding: placed ? 0 : '0.75rem 1rem',
  borderRadius: theme.radius,
  color: placed ? theme.colors.text : theme.colors.warningText,
  background: placed ? 'none' : theme.colors.warningBackground,
  border: placed ? 'none' : `1px solid ${theme.colors.warningText}`,
  fontWeight: placed ? 400 : 600,
}));

const Hint = styled.span(({ theme }) => ({
  display: 'block',
  margin: '-0.6rem 0 1rem',
  color: theme.colors.muted,
  fontSize: '0.9rem',
  maxWidth: '28rem',
}));

/**
 * What the booking will come to, said while it is filled in (before Book): a place for every
 * child, or the waiting list for the whole booking, and why (workshop/places.ts).
 */
function BookingOutlook({ control, placesLeft }: { control: Control<BookingValues>; placesLeft: number }) {
  const children = useWatch({ control, name: 'children' }).length;
  const { placed, text } = bookingOutlook(placesLeft, children);
  const advice =
    !placed && placesLeft > 0
      ? ` To take the places left, book ${placesLeft === 1 ? '1 child' : `at most ${placesLeft} children`}.`
      : '';
  return (
    <Outlook role="status" placed={placed} data-testid="booking-outlook">
      {text}
      {advice}
    </Outlook>
  );
}

/**
 * A workshop booking: the parent (the contact form's rules, one phone number sent), the children
 * (Add Another Child) and comments, then what the booking will come to with the places left. The
 * public page has a honeypot, the browser's autofill and a privacy notice (by each allergies field
 * and before Book); an admin booking for a parent has none of them.
 */
export function BookingForm({
  booking: { form, onSubmit, failure },
  forParent,
  placesLeft,
  privacy,
  onCancel,
}: {
  booking: ReturnType<typeof useBookingForm>;
  /** Filled in by an admin on a parent's behalf rather than by the parent. */
  forParent: boolean;
  /** The event's places left now. */
  placesLeft: number;
  /** What is done with the details typed in: a line by each allergies field, and the whole notice. */
  privacy?: { allergies: string; notice: ReactNode };
  onCancel: () => void;
}) {
  const children = useFieldArray({ control: form.control, name: 'children' });
  const {
    register,
    formState: { errors, isSubmitting },
  } = form;
  return (
    <FormProvider {...form}>
      <FormPanel noValidate onSubmit={onSubmit} aria-label="Booking">
        <h2>Parent</h2>
        <ContactDetailsFields addressAndPhoneRequired autoComplete={!forParent} />
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
              aria-describedby={allergiesDescription(index, privacy !== undefined, errors.children?.[index]?.allergies)}
              {...register(`children.${index}.allergies`)}
            />
            {privacy ? <Hint id={`child-${index}-allergies-privacy`}>{privacy.allergies}</Hint> : null}
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
        {privacy?.notice}
        {forParent ? null : (
          <Honeypot aria-hidden="true">
            <label htmlFor="website">Leave this empty</label>
            <input id="website" tabIndex={-1} autoComplete="off" {...register('website')} />
          </Honeypot>
        )}
        <BookingOutlook control={form.control} placesLeft={placesLeft} />
        <FormActions failure={failure} submitting={isSubmitting} submitLabel="Book" onCancel={onCancel} />
      </FormPanel>
    </FormProvider>
  );
}
