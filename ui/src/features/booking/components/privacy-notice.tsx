import { LIMITS } from '@agency/contracts';
import styled from '@emotion/styled';
import type { PublicAgency } from '../api';

const Notice = styled.section(({ theme }) => ({
  margin: '1.5rem 0 0',
  padding: '1rem 1.25rem',
  border: `1px solid ${theme.colors.border}`,
  borderRadius: theme.radius,
  background: theme.colors.background,
  fontSize: '0.95rem',
  '& h2': { fontSize: '1.05rem', margin: '0 0 0.5rem' },
  '& p': { margin: '0 0 0.5rem' },
  '& p:last-child': { marginBottom: 0 },
}));

/** The line by each allergies field: why a health detail is asked for, and who sees it. */
export const allergiesPrivacy =
  'Health information: used only to keep your child safe at the workshop, and seen only by our staff. See "Your details" below.';

/**
 * What the agency does with what the booking form asks for (allergies are health data): what is
 * kept, why, who sees it, and how to see it or have it deleted (docs/personal-data.md; an
 * unconfirmed booking's details are destroyed when its hold lapses, docs/limits.md "Public bookings").
 */
export function PrivacyNotice({ agency }: { agency: PublicAgency }) {
  return (
    <Notice aria-labelledby="privacy-heading">
      <h2 id="privacy-heading">Your details</h2>
      <p>
        {agency.name} keeps what you give on this form (your contact details, your children's names, school, year and
        allergies, and your comments) to run the workshop: to confirm your booking, tell you about it, invoice you, and
        look after your children on the day.
      </p>
      <p>
        Only our staff see them: the allergies are on the register our staff use at the workshop. We do not share them
        with anyone else.
      </p>
      <p>
        If you do not confirm the booking from the e-mail we send, everything you typed is deleted after{' '}
        {LIMITS.bookingHoldMinutes} minutes.
      </p>
      <p>
        To see what we hold about you, or to ask us to delete it, e-mail{' '}
        <a href={`mailto:${agency.email}`}>{agency.email}</a>. An invoice we have issued keeps the billing name and
        address for as long as the accounting rules require.
      </p>
    </Notice>
  );
}
