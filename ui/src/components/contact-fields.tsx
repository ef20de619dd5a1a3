import type { FocusEvent } from 'react';
import { useFormContext } from 'react-hook-form';
import { addressLines, type ContactFields, phoneSlots, phoneTypes } from '../lib/contact-form-values';
import { required } from '../lib/validation';
import { FieldRow, Fieldset } from './form-layout';
import { Select } from './select';
import { TextField } from './text-field';

const phoneTypeOptions = phoneTypes.map((type) => ({ value: type, label: type }));

/**
 * First and last name, address (four lines), postcode, email and two phone slots, inside any
 * form whose values include the contact fields (it reads the form from react-hook-form's
 * FormProvider). A family's contact must have an address and a phone; a tutor's need not.
 */
export function ContactDetailsFields({
  addressAndPhoneRequired,
  autoComplete,
  onLastNameLeft,
}: {
  addressAndPhoneRequired: boolean;
  /** Browser autofill suits a person's own details, not a form filled for someone else. */
  autoComplete: boolean;
  /** Called after Last Name loses focus (and is validated), e.g. to suggest names from it. */
  onLastNameLeft?: () => void;
}) {
  const {
    register,
    formState: { errors },
  } = useFormContext<ContactFields>();
  const hint = (value: string) => (autoComplete ? value : 'off');
  const mark = addressAndPhoneRequired ? ' *' : '';
  const lastName = register('lastName', { validate: required('Last name is required') });
  return (
    <>
      <FieldRow>
        <TextField
          id="firstName"
          label="First Name"
          required
          autoComplete={hint('given-name')}
          error={errors.firstName?.message}
          {...register('firstName', { validate: required('First name is required') })}
        />
        <TextField
          id="lastName"
          label="Last Name"
          required
          autoComplete={hint('family-name')}
          error={errors.lastName?.message}
          {...lastName}
          onBlur={async (event: FocusEvent<HTMLInputElement>) => {
            await lastName.onBlur(event);
            onLastNameLeft?.();
          }}
        />
      </FieldRow>

      <Fieldset>
        <legend>Address{mark}</legend>
        {Array.from({ length: addressLines }, (_, index) => (
          <TextField
            key={index}
            id={`address-${index + 1}`}
            label={`Address line ${index + 1}`}
            required={addressAndPhoneRequired && index === 0}
            autoComplete={hint(`address-line${Math.min(index + 1, 3)}`)}
            error={errors.address?.[index]?.message}
            {...register(
              `address.${index}`,
              addressAndPhoneRequired && index === 0 ? { validate: required('Address is required') } : {},
            )}
          />
        ))}
        <TextField
          id="postcode"
          label="Postcode"
          required
          autoComplete={hint('postal-code')}
          error={errors.postcode?.message}
          {...register('postcode', { validate: required('Postcode is required') })}
        />
      </Fieldset>

      <TextField
        id="email"
        label="Email"
        type="email"
        required
        autoComplete={hint('email')}
        error={errors.email?.message}
        {...register('email', { validate: required('Email is required') })}
      />

      <Fieldset>
        <legend>Phone{mark}</legend>
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
              required={addressAndPhoneRequired && index === 0}
              autoComplete={hint('tel')}
              error={errors.phone?.[index]?.number?.message}
              {...register(
                `phone.${index}.number`,
                addressAndPhoneRequired && index === 0 ? { validate: required('Phone is required') } : {},
              )}
            />
          </FieldRow>
        ))}
      </Fieldset>
    </>
  );
}
