import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { Button } from '../../../components/button';
import { errorMessage } from '../../../lib/http';
import { signInWithLink } from '../api';
import { SignInFrame } from '../components/family-frame';

/**
 * /family/sign-in/{secret}: the link e-mailed to a family. It signs in by the button, not by
 * opening the page, so a mail scanner that opens links spends nothing.
 */
export function FamilySignInLinkPage() {
  const { token = '' } = useParams();
  const navigate = useNavigate();
  const [state, setState] = useState<{ step: 'asking' | 'sending' } | { step: 'failed'; message: string }>({
    step: 'asking',
  });
  const signIn = async () => {
    setState({ step: 'sending' });
    try {
      await signInWithLink(token);
      navigate('/family/home', { replace: true });
    } catch (error) {
      setState({ step: 'failed', message: errorMessage(error) });
    }
  };
  return (
    <SignInFrame>
      <h1>Sign In</h1>
      <p>Sign in to see your family’s lessons, invoices and bookings.</p>
      {state.step === 'failed' ? (
        <p role="alert">
          {state.message} <Link to="/family">Ask for a new link</Link>
        </p>
      ) : null}
      <Button type="button" onClick={signIn} disabled={state.step === 'sending'}>
        Sign In
      </Button>
    </SignInFrame>
  );
}
