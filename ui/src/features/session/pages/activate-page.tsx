import { useEffect, useState } from 'react';
import { type Path, useForm } from 'react-hook-form';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { ErrorAlert } from '../../../components/alert';
import { Button, ButtonRow } from '../../../components/button';
import { TextField } from '../../../components/text-field';
import { errorMessage, HttpError } from '../../../lib/http';
import { activate, activationUsername } from '../api';
import { CentredPanel } from '../components/centred-panel';
import { NewPasswordFields, type NewPasswordValues } from '../components/new-password-fields';

type ActivationValues = NewPasswordValues & { username: string };

/** activate/{code}: the tutor confirms the username from the e-mail and chooses a password. */
export function ActivatePage() {
  const { code = '' } = useParams();
  const navigate = useNavigate();
  const [failure, setFailure] = useState<string | null>(null);
  const {
    register,
    handleSubmit,
    setError,
    getValues,
    setValue,
    formState: { errors, isSubmitting },
  } = useForm<ActivationValues>({
    mode: 'onTouched',
    defaultValues: { username: '', password: '', confirmPassword: '' },
  });

  useEffect(() => {
    document.title = 'Activation · Tutoring Agency';
  }, []);

  // The username the e-mail named, filled in unless the tutor has begun typing one; a link that
  // cannot activate fills in nothing (its failure shows when the form is sent).
  useEffect(() => {
    const asked = new AbortController();
    activationUsername(code, asked.signal)
      .then((username) => {
        if (username && getValues('username') === '') setValue('username', username);
      })
      .catch(() => undefined);
    return () => asked.abort();
  }, [code, getValues, setValue]);

  const onSubmit = handleSubmit(async (values) => {
    setFailure(null);
    try {
      await activate({ activationCode: code, username: values.username.trim(), password: values.password });
      navigate('/', { replace: true });
    } catch (error) {
      setFailure(errorMessage(error));
      if (error instanceof HttpError && error.fields) {
        for (const [field, message] of Object.entries(error.fields)) {
          if (field === 'username' || field === 'password')
            setError(field as Path<ActivationValues>, { type: 'server', message });
        }
      }
    }
  });

  return (
    <CentredPanel title="Activation">
      <form noValidate onSubmit={onSubmit}>
        <TextField
          id="username"
          label="Username"
          autoComplete="username"
          required
          error={errors.username?.message}
          {...register('username', { validate: (value) => value.trim() !== '' || 'Please enter your username' })}
        />
        <NewPasswordFields register={register} errors={errors} />
        {failure ? <ErrorAlert>{failure}</ErrorAlert> : null}
        <ButtonRow>
          <Button type="submit" disabled={isSubmitting}>
            {isSubmitting ? 'Activating…' : 'Activate'}
          </Button>
          <Link to="/login">Back to login</Link>
        </ButtonRow>
      </form>
    </CentredPanel>
  );
}
