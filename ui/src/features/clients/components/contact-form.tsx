import { useState } from 'react';
import { type Path, useForm } from 'react-hook-form';
import { ErrorAlert } from '../../../components/alert';
import { Button, ButtonRow } from '../../../components/button';
import { DateField } from '../../../components/date-field';
import { FieldRow, Fieldset, FormPanel } from '../../../components/form-layout';
import { Select } from '../../../components/select';
import { TextField } from '../../../components/text-field';
import { useCommandId } from '../../../lib/command-id';
import { errorMessage, HttpError } from '../../../lib/http';
import type { NewContact } from '../api';
import {
  addressLines,
  type ContactFormValues,
  contactFieldName,
  phoneSlots,
  phoneTypes,
  toContactPayload,
} from '../contact-form-values';

const required = (message: string) => (value: string) => value.trim() !== '' || message;

const phoneTypeOptions = phoneTypes.map((type) => ({ value: type, label: type }));

/**
 * First Name, Last Name, four address lines, Postcode, Email, two phone slots and an optional
 * date of birth. `onSave` gets the cleaned contact and the command id of this save.
 */
export function ContactForm({
  initial,
  onSave,
  onCancel,
}: {
  initial: ContactFormValues;
  onSave: (contact: NewContact, commandId: string) => Promise<void>;
  onCancel: () => void;
}) {
  const commandId = useCommandId();
  const [failure, setFailure] = useState<string | null>(null);
  const {
    register,
    handleSubmit,
    setError,
    formState: { errors, isSubmitting },
  } = useForm<ContactFormValues>({ mode: 'onTouched', defaultValues: initial });

  const onSubmit = handleSubmit(async (values) => {
    setFailure(null);
    try {
      await onSave(toContactPayload(values), commandId.current());
      commandId.settle();
    } catch (error) {
      commandId.settle(error);
      setFailure(errorMessage(error));
      if (error instanceof HttpError && error.fields) {
        for (const [field, message] of Object.entries(error.fields)) {
          setError(contactFieldName(field) as Path<ContactFormValues>, { type: 'server', message });
        }
      }
    }
  });

  return (
    <FormPanel noValidate onSubmit={onSubmit}>
      <FieldRow>
        <TextField
          id="firstName"
          label="First Name"
          required
          autoComplete="given-name"
          error={errors.firstName?.message}
          {...register('firstName', { validate: required('First name is required') })}
        />
        <TextField
          id="lastName"
          label="Last Name"
          required
          autoComplete="family-name"
          error={errors.lastName?.message}
          {...register('lastName', { validate: required('Last name is required') })}
        />
      </FieldRow>

      <Fieldset>
        <legend>Address *</legend>
        {Array.from({ length: addressLines }, (_, index) => (
          <TextField
            key={index}
            id={`address-${index + 1}`}
            label={`Address line ${index + 1}`}
            required={index === 0}
            error={errors.address?.[index]?.message}
            {...register(`address.${index}`, index === 0 ? { validate: required('Address is required') } : {})}
          />
        ))}
        <TextField
          id="postcode"
          label="Postcode"
          required
          autoComplete="postal-code"
          error={errors.postcode?.message}
          {...register('postcode', { validate: required('Postcode is required') })}
        />
      </Fieldset>

      <TextField
        id="email"
        label="Email"
        type="email"
        required
        autoComplete="email"
        error={errors.email?.message}
        {...register('email', { validate: required('Email is required') })}
      />

      <Fieldset>
        <legend>Phone *</legend>
        {Array.from({ length: phoneSlots }, (_, index) => (
          <FieldRow key={index}>
            <Select
              id={`phone-${index + 1}-type`}
              label={`Phone ${index + 1} type`}
              options={phoneTypeOptions}
              {...register(`phone.${index}.type`)}
            />
            <TextField
              id={`phone-${index + 1}`}
              label={`Phone ${index + 1}`}
              type="tel"
              required={index === 0}
              autoComplete="tel"
              error={errors.phone?.[index]?.number?.message}
              {...register(`phone.${index}.number`, index === 0 ? { validate: required('Phone is required') } : {})}
            />
          </FieldRow>
        ))}
      </Fieldset>

      <DateField id="dob" label="Date of Birth" error={errors.dob?.message} {...register('dob')} />

      {failure ? <ErrorAlert>{failure}</ErrorAlert> : null}
      <ButtonRow>
        <Button type="submit" disabled={isSubmitting}>
          {isSubmitting ? 'Saving…' : 'Save'}
        </Button>
        <Button type="button" variant="secondary" onClick={onCancel}>
          Cancel
        </Button>
      </ButtonRow>
    </FormPanel>
  );
}
