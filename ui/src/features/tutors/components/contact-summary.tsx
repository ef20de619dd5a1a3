import type { ReactNode } from 'react';
import { AddressLines, EmailValue, FactList, PhoneLines } from '../../../components/contact-values';
import { formatDate } from '../../../lib/format';
import type { Tutor } from '../api';

/** The tutor's contact details (and any extra facts) as a definition list. */
export function ContactSummary({ tutor, children }: { tutor: Tutor; children?: ReactNode }) {
  const { contact } = tutor;
  return (
    <FactList>
      <dt>Name</dt>
      <dd>{tutor.name}</dd>
      <dt>Address</dt>
      <dd>
        <AddressLines address={contact.address} postcode={contact.postcode} />
      </dd>
      <dt>Email</dt>
      <dd>
        <EmailValue email={contact.email} />
      </dd>
      <dt>Phone</dt>
      <dd>
        <PhoneLines phones={contact.phone} />
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
    </FactList>
  );
}
