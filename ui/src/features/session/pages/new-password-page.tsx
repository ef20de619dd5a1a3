import { useEffect, useState } from 'react';
import { useForm } from 'react-hook-form';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { ErrorAlert } from '../../../components/alert';
import { Button, ButtonRow } from '../../../components/button';
import { errorMessage, HttpError } from '../../../lib/http';
import { setNewPassword } from '../api';
import { CentredPanel } from '../components/centred-panel';
import { NewPasswordFields, type NewPasswordValues } from '../components/new-password-fields';

/** reset/{token}: the page the reset e-mail links to; a new password signs the user in. */
export function NewPasswordPage() {
  const { token = '' } = useParams();
  const navigate = useNavigate();
  const [failure, setFailure] = useState<string | null>(null);
  const {
    register,
    handleSubmit,
    setError,
    formState: { errors, isSubmitting },
  } = useForm<NewPasswordValues>({ mode: 'onTouched', defaultValues: { password: '', confirmPassword: '' } });

  useEffect(() => {
    document.title = 'Choose a New Password · Tutoring Agency';
  }, []);

  const onSubmit = handleSubmit(async (values) => {
    setFailure(null);
    try {
      await setNewPassword({ resetToken: token, password: values.password });
      navigate('/', { replace: true });
    } catch (error) {
      // A refused password (too short, too common) is shown on its field; the link still works.
      const passwordMessage = error instanceof HttpError ? error.fields?.password : undefined;
      if (passwordMessage) setError('password', { type: 'server', message: passwordMessage });
      else setFailure(errorMessage(error));
    }
  });

  return (
    <CentredPanel title="Choose a New Password">
      <form noValidate onSubmit={onSubmit}>
        <NewPasswordFields register={register} errors={errors} />
        {failure ? (
          <ErrorAlert>
            {failure} <Link to="/reset">Ask for a new link</Link>
          </ErrorAlert>
        ) : null}
        <ButtonRow>
          <Button type="submit" disabled={isSubmitting}>
            {isSubmitting ? 'Saving…' : 'Set Password'}
          </Button>
          <Link to="/login">Back to login</Link>
        </ButtonRow>
      </form>
    </CentredPanel>
  );
}
