import { useState } from 'react';
import { Button } from '../../../components/button';
import { LoadState } from '../../../components/load-state';
import { Panel, SectionHeading } from '../../../components/panel';
import { errorMessage } from '../../../lib/http';
import { useLoader } from '../../../lib/use-loader';
import { askForErasure, EXPORT_URL, fetchDetails } from '../api';
import { CalendarFeed } from '../components/calendar-feed';
import { ContactCorrection } from '../components/contact-correction';
import { FamilyFrame } from '../components/family-frame';

/**
 * /family/my-data: what the agency holds about the family's contacts, its subject-access export
 * to download, and a request to be erased (an admin decides it: docs/family-access.md).
 */
export function FamilyMyDataPage() {
  const { state, retry, reload } = useLoader(fetchDetails, 'own');
  const [commandId] = useState(() => crypto.randomUUID());
  const [erasure, setErasure] = useState<{ step: 'idle' | 'sending' | 'asked' } | { step: 'failed'; message: string }>({
    step: 'idle',
  });
  const ask = async () => {
    setErasure({ step: 'sending' });
    try {
      await askForErasure(commandId);
      setErasure({ step: 'asked' });
    } catch (error) {
      setErasure({ step: 'failed', message: errorMessage(error) });
    }
  };
  return (
    <FamilyFrame title="My Data">
      <LoadState state={state} onRetry={retry}>
        {({ family }) =>
          family.contacts.map((contact) => (
            <Panel key={contact.id} aria-label={`${contact.firstName} ${contact.lastName}`}>
              <strong>
                {contact.firstName} {contact.lastName}
              </strong>
              <p>{contact.email}</p>
              {contact.phone.map((phone) => (
                <p key={`${phone.type}-${phone.number}`}>
                  {phone.type}: {phone.number}
                </p>
              ))}
              <p>{[...contact.address.filter(Boolean), contact.postcode].join(', ')}</p>
              <ContactCorrection contact={contact} onSaved={reload} />
            </Panel>
          ))
        }
      </LoadState>
      <CalendarFeed />
      <Panel aria-label="Your data">
        <SectionHeading>Your Data</SectionHeading>
        <p>
          <a href={EXPORT_URL} download>
            Download all the data we hold about your family
          </a>{' '}
          (a zip of a readable PDF and the data itself).
        </p>
        {erasure.step === 'asked' ? (
          <p role="status">We have your request. The agency will decide it and let you know.</p>
        ) : (
          <>
            <p>You can ask us to erase your family’s personal data. An admin at the agency decides the request.</p>
            {erasure.step === 'failed' ? <p role="alert">{erasure.message}</p> : null}
            <Button type="button" variant="secondary" onClick={ask} disabled={erasure.step === 'sending'}>
              Ask to Be Erased
            </Button>
          </>
        )}
      </Panel>
    </FamilyFrame>
  );
}
