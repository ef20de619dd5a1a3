import styled from '@emotion/styled';
import { useState } from 'react';
import { Button, ButtonRow } from '../../../components/button';
import { Panel, SectionHeading } from '../../../components/panel';
import { errorMessage } from '../../../lib/http';
import { makeCalendarFeed, revokeCalendarFeed } from '../api';

/** A long address breaks anywhere rather than widening the page on a phone. */
const Address = styled.a({ overflowWrap: 'anywhere' });

/**
 * The family's calendar feed of its confirmed bookings: its address is shown once, when made (only
 * its hash is kept); making a new one, or stopping it, ends the address before.
 */
export function CalendarFeed() {
  const [state, setState] = useState<
    { step: 'idle' | 'sending' | 'stopped' } | { step: 'made'; url: string } | { step: 'failed'; message: string }
  >({ step: 'idle' });
  const run = async (action: () => Promise<{ step: 'made'; url: string } | { step: 'stopped' }>) => {
    setState({ step: 'sending' });
    try {
      setState(await action());
    } catch (error) {
      setState({ step: 'failed', message: errorMessage(error) });
    }
  };
  return (
    <Panel aria-label="Calendar">
      <SectionHeading>Calendar</SectionHeading>
      <p>Add your confirmed workshop bookings to your phone’s calendar with a private address.</p>
      {state.step === 'made' ? (
        <p role="status">
          Your calendar address (keep it private): <Address href={state.url}>{state.url}</Address>
        </p>
      ) : null}
      {state.step === 'stopped' ? <p role="status">The calendar address no longer works.</p> : null}
      {state.step === 'failed' ? <p role="alert">{state.message}</p> : null}
      <ButtonRow>
        <Button
          type="button"
          disabled={state.step === 'sending'}
          onClick={() => run(async () => ({ step: 'made', url: (await makeCalendarFeed()).feed.url }))}
        >
          New Calendar Address
        </Button>
        <Button
          type="button"
          variant="secondary"
          disabled={state.step === 'sending'}
          onClick={() =>
            run(async () => {
              await revokeCalendarFeed();
              return { step: 'stopped' };
            })
          }
        >
          Stop Calendar Address
        </Button>
      </ButtonRow>
    </Panel>
  );
}
