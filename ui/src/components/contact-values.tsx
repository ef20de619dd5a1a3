import styled from '@emotion/styled';
import type { Phone } from '../lib/contact-form-values';

/** A definition list of facts: labels in the first column, values in the second. */
export const FactList = styled.dl({
  display: 'grid',
  gridTemplateColumns: 'max-content minmax(0, 1fr)',
  gap: '0.4rem 1.25rem',
  margin: 0,
  '& dt': { fontWeight: 600 },
  // A long e-mail address breaks rather than widen a phone's page.
  '& dd': { margin: 0, overflowWrap: 'anywhere' },
});

const Line = styled.span({ display: 'block' });

export const EmailValue = ({ email }: { email: string }) => (email ? <a href={`mailto:${email}`}>{email}</a> : <>—</>);

/** Every phone number on its own line, with its type. */
export function PhoneLines({ phones }: { phones: Phone[] }) {
  if (phones.length === 0) return <>—</>;
  return (
    <>
      {phones.map((phone, index) => (
        <Line key={index}>
          {phone.number}
          {phone.type ? ` (${phone.type})` : ''}
        </Line>
      ))}
    </>
  );
}

/** Every address line, then the postcode, each on its own line. */
export function AddressLines({ address, postcode }: { address: string[]; postcode: string }) {
  return (
    <>
      {address.map((line, index) => (
        <Line key={index}>{line}</Line>
      ))}
      <Line>{postcode}</Line>
    </>
  );
}
