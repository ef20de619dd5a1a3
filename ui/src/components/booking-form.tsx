import styled from '@emotion/styled';
import { FormProvider, useFieldArray } from 'react-hook-form';
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

/** Kept out of sight and out of the tab order: only a bot fills it in. */
const Honeypot = styled.div({
  position: 'absolute',
  left: '-10000px',
  width: '1px',
  height: '1px',
  overflow: 'hidden',
});

/**
 * A workshop booking: the parent (the contact form's rules, one phone number sent), the children
 * (Add Another Child) and comments. The public page has a honeypot and the browser's autofill; an
 * admin booking for a parent has neither.
 */
export function BookingForm({
  booking: { form, onSubmit, failure },
  forParent,
  onCancel,
}: {
  booking: ReturnType<typeof useBookingForm>;
  /** Filled in by an admin on a parent's behalf rather than by the parent. */
  forParent: boolean;
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
        {forParent ? null : (
          <Honeypot aria-hidden="true">
            <label htmlFor="website">Leave this empty</label>
            <input id="website" tabIndex={-1} autoComplete="off" {...register('website')} />
          </Honeypot>
        )}
        <FormActions failure={failure} submitting={isSubmitting} submitLabel="Book" onCancel={onCancel} />
      </FormPanel>
    </FormProvider>
  );
}
