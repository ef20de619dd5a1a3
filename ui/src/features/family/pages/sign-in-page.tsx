import { type FormEvent, useState } from 'react';
import { Button } from '../../../components/button';
import { TextField } from '../../../components/text-field';
import { errorMessage } from '../../../lib/http';
import { askForLink } from '../api';
import { SignInFrame } from '../components/family-frame';

/**
 * /family: a family types its e-mail address and is sent a sign-in link. The answer is the same
 * whether or not the address is known (docs/family-access.md), so the page says the same too.
 */
export function FamilySignInPage() {
  const [email, setEmail] = useState('');
  const [state, setState] = useState<{ step: 'asking' | 'sending' | 'sent' } | { step: 'failed'; message: string }>({
    step: 'asking',
  });
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setState({ step: 'sending' });
    try {
      await askForLink(email.trim());
      setState({ step: 'sent' });
    } catch (error) {
      setState({ step: 'failed', message: errorMessage(error) });
    }
  };
  if (state.step === 'sent') {
    return (
      <SignInFrame>
        <h1>Check Your Mail</h1>
        <p role="status">
          If {email.trim()} is an address we have for your family, we have sent it a link to sign in. The link works
          once, within 15 minutes.
        </p>
        <Button type="button" variant="secondary" onClick={() => setState({ step: 'asking' })}>
          Use Another Address
        </Button>
      </SignInFrame>
    );
  }
  return (
    <SignInFrame>
      <h1>Family Sign In</h1>
      <p>Enter the e-mail address the agency has for you: we will send you a link to sign in.</p>
      <form onSubmit={submit} noValidate>
        <TextField
          id="family-email"
          label="Email"
          type="email"
          autoComplete="email"
          required
          value={email}
          onChange={(event) => setEmail(event.target.value)}
          error={state.step === 'failed' ? state.message : undefined}
        />
        <Button type="submit" disabled={state.step === 'sending' || email.trim() === ''}>
          Send Me a Link
        </Button>
      </form>
    </SignInFrame>
  );
}
