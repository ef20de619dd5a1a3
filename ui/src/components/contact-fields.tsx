import { useFormContext } from 'react-hook-form';
import { addressLines, type ContactFields, phoneSlots, phoneTypes } from '../lib/contact-form-values';
import { FieldRow, Fieldset } from './form-layout';
import { Select } from './select';
import { TextField } from './text-field';

const required = (message: string) => (value: string) => value.trim() !== '' || message;

const phoneTypeOptions = phoneTypes.map((type) => ({ value: type, label: type }));

/**
 * Address (four lines), Postcode, Email and two phone slots, inside any form whose values
 * include the contact fields (it reads the form from react-hook-form's FormProvider). A
 * family's contact must have an address and a phone; a tutor's need not.
 */
export function ContactDetailsFields({
  addressAndPhoneRequired,
  autoComplete,
}: {
  addressAndPhoneRequired: boolean;
  /** Browser autofill suits a person's own details, not a form filled for someone else. */
  autoComplete: boolean;
}) {
  const {
    register,
    formState: { errors },
  } = useFormContext<ContactFields>();
  const hint = (value: string) => (autoComplete ? value : 'off');
  const mark = addressAndPhoneRequired ? ' *' : '';
  return (
    <>
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
