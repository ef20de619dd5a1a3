import styled from '@emotion/styled';
import { fetchAgencyDetails } from '../../../lib/agency-details';
import { useLoader } from '../../../lib/use-loader';

const Notice = styled.aside(({ theme }) => ({
  color: theme.colors.danger,
  background: theme.colors.dangerBackground,
  border: `2px solid ${theme.colors.danger}`,
  borderRadius: theme.radius,
  padding: '0.75rem 1rem',
  margin: '0 0 1.25rem',
  fontWeight: 600,
  '& p': { margin: '0.25rem 0' },
}));

const loadAgency = (_: 'agency', signal: AbortSignal) => fetchAgencyDetails(signal);

/**
 * The spec's red notice: the agency's bank account has changed, with the new account's details.
 * Its text, the account and whether it shows at all are the agency's details (settings screen).
 */
export function BankAccountNotice() {
  const { state } = useLoader(loadAgency, 'agency');
  if (state.status !== 'loaded' || !state.data.showBankNotice) return null;
  const { bankName, accountName, sortCode, accountNumber, bankNoticeText } = state.data;
  return (
    <Notice aria-label="New bank account">
      <p>{bankNoticeText}</p>
      <p>
        {accountName}, {bankName}: sort code {sortCode}, account number {accountNumber}.
      </p>
    </Notice>
  );
}
