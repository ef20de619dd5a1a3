import { useNavigate, useParams } from 'react-router-dom';
import { LoadState } from '../../../components/load-state';
import { PageHeading } from '../../../components/page-heading';
import { toContactFormValues } from '../../../lib/contact-form-values';
import { useLoader } from '../../../lib/use-loader';
import { addContact, createClient, fetchContact, saveContact } from '../api';
import { ContactForm } from '../components/contact-form';

/** client/new: a new client made with its first contact. */
export function NewClientPage() {
  const navigate = useNavigate();
  return (
    <>
      <PageHeading title="New Client" />
      <ContactForm
        initial={toContactFormValues()}
        onSave={async (contact, commandId) => {
          const answer = await createClient({ ...contact, commandId });
          navigate(`/client/${answer.client.id}`);
        }}
        onCancel={() => navigate('/clients')}
      />
    </>
  );
}

/** contact/new/{clientId}. */
export function NewContactPage() {
  const { id: clientId = '' } = useParams();
  const navigate = useNavigate();
  return (
    <>
      <PageHeading title="New Contact" />
      <ContactForm
        initial={toContactFormValues()}
        onSave={async (contact, commandId) => {
          await addContact(clientId, { ...contact, commandId });
          navigate(`/client/${clientId}`);
        }}
        onCancel={() => navigate(`/client/${clientId}`)}
      />
    </>
  );
}

const loadContact = (id: string, signal: AbortSignal) => fetchContact(id, signal);

/** A tutor's contact is edited here too (from the tutor detail); back goes to its tutor. */
const ownerPage = (contact: { clientId?: string; tutorId?: string }) =>
  contact.tutorId ? `/tutor/${contact.tutorId}` : `/client/${contact.clientId}`;

/** contact/edit/{contactId}. */
export function EditContactPage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const { state, retry } = useLoader(loadContact, id);
  return (
    <>
      <PageHeading title="Edit Contact" />
      <LoadState state={state} onRetry={retry}>
        {(contact) => (
          <ContactForm
            key={contact.id}
            initial={toContactFormValues(contact)}
            onSave={async (values, commandId) => {
              await saveContact({ ...values, id: contact.id, commandId });
              navigate(ownerPage(contact));
            }}
            onCancel={() => navigate(ownerPage(contact))}
          />
        )}
      </LoadState>
    </>
  );
}
