import styled from '@emotion/styled';
import type { ReactNode } from 'react';
import { formatDate } from '../../../lib/format';
import type { Tutor } from '../api';

export const Details = styled.dl({
  display: 'grid',
  gridTemplateColumns: 'max-content 1fr',
  gap: '0.4rem 1.25rem',
  margin: 0,
  '& dt': { fontWeight: 600 },
  '& dd': { margin: 0 },
});

const Line = styled.span({ display: 'block' });

/** The tutor's contact details (and any extra facts) as a definition list. */
export function ContactSummary({ tutor, children }: { tutor: Tutor; children?: ReactNode }) {
  const { contact } = tutor;
  return (
    <Details>
      <dt>Name</dt>
      <dd>{tutor.name}</dd>
      <dt>Address</dt>
      <dd>
        {contact.address.map((line, index) => (
          <Line key={index}>{line}</Line>
        ))}
        <Line>{contact.postcode}</Line>
      </dd>
      <dt>Email</dt>
      <dd>{contact.email ? <a href={`mailto:${contact.email}`}>{contact.email}</a> : '—'}</dd>
      <dt>Phone</dt>
      <dd>
        {contact.phone.length === 0
          ? '—'
          : contact.phone.map((phone, index) => (
              <Line key={index}>
                {phone.number}
                {phone.type ? ` (${phone.type})` : ''}
              </Line>
            ))}
      </dd>
      <dt>Start Date</dt>
      <dd>{formatDate(tutor.startDate)}</dd>
      {tutor.endDate ? (
        <>
          <dt>End Date</dt>
          <dd>{formatDate(tutor.endDate)}</dd>
        </>
      ) : null}
      {children}
    </Details>
  );
}
