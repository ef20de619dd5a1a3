import styled from '@emotion/styled';
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

const Details = styled.dl({
  display: 'grid',
  gridTemplateColumns: 'max-content 1fr',
  gap: '0.35rem 1rem',
  margin: '0.75rem 0 0',
  '& dt': { fontWeight: 600 },
  '& dd': { margin: 0 },
});

const Lines = styled.span({ display: 'block' });

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
        <dd>{contact.email ? <a href={`mailto:${contact.email}`}>{contact.email}</a> : '—'}</dd>
        <dt>Phone</dt>
        <dd>
          {contact.phone.length === 0
            ? '—'
            : contact.phone.map((phone, index) => (
                <Lines key={index}>
                  {phone.number}
                  {phone.type ? ` (${phone.type})` : ''}
                </Lines>
              ))}
        </dd>
        <dt>Address</dt>
        <dd>
          {contact.address.map((line, index) => (
            <Lines key={index}>{line}</Lines>
          ))}
          <Lines>{contact.postcode}</Lines>
        </dd>
      </Details>
    </Card>
  );
}
