import type { FieldErrors, UseFormRegister } from 'react-hook-form';
import { TextField } from '../../../components/text-field';

export type NewPasswordValues = { password: string; confirmPassword: string };

export const MIN_PASSWORD_LENGTH = 7;

/** Password and Confirm Password with the activation rules of spec §5 (also used to reset a password). */
export function NewPasswordFields<T extends NewPasswordValues>({
  register,
  errors,
}: {
  register: UseFormRegister<T>;
  errors: FieldErrors<NewPasswordValues>;
}) {
  const reg = register as unknown as UseFormRegister<NewPasswordValues>;
  return (
    <>
      <TextField
        id="password"
        label="Password"
        type="password"
        autoComplete="new-password"
        required
        error={errors.password?.message}
        {...reg('password', {
          validate: {
            required: (value) => value !== '' || 'Please enter a password',
            length: (value) =>
              value.length >= MIN_PASSWORD_LENGTH || `Password must be at least ${MIN_PASSWORD_LENGTH} characters`,
          },
        })}
      />
      <TextField
        id="confirmPassword"
        label="Confirm Password"
        type="password"
        autoComplete="new-password"
        required
        error={errors.confirmPassword?.message}
        {...reg('confirmPassword', {
          validate: {
            required: (value) => value !== '' || 'Please confirm your password',
            matches: (value, values) => value === values.password || 'Confirm Password must match password',
          },
        })}
      />
    </>
  );
}
