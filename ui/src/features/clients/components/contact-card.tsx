import styled from '@emotion/styled';
import { AddressLines, EmailValue, FactList, PhoneLines } from '../../../components/contact-values';
import type { Contact } from '../api';
import { PencilLink } from './pencil-link';

const Card = styled.article(({ theme }) => ({
  background: theme.colors.surface,
  border: `1px solid ${theme.colors.border}`,
  borderRadius: theme.radius,
  padding: '1rem 1.25rem',
}));

const Top = styled.div({ display: 'flex', alignItems: 'center', justifyContent: 'space-between', gap: '0.5rem' });

const Name = styled.h3({ margin: 0, fontSize: '1.1rem' });

const Details = styled(FactList)({ gap: '0.35rem 1rem', margin: '0.75rem 0 0' });

export function ContactCard({ contact, editable }: { contact: Contact; editable: boolean }) {
  const name = `${contact.firstName} ${contact.lastName}`;
  return (
    <Card>
      <Top>
        <Name>{name}</Name>
        {editable ? <PencilLink to={`/contact/edit/${contact.id}`} label={`Edit contact ${name}`} /> : null}
      </Top>
      <Details>
        <dt>Email</dt>
        <dd>
          <EmailValue email={contact.email} />
        </dd>
        <dt>Phone</dt>
        <dd>
          <PhoneLines phones={contact.phone} />
        </dd>
        <dt>Address</dt>
        <dd>
          <AddressLines address={contact.address} postcode={contact.postcode} />
        </dd>
      </Details>
    </Card>
  );
}
