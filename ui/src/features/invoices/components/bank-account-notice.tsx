import { agencyDetails } from '@agency/contracts/agency';
import styled from '@emotion/styled';

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

/** The spec's red notice: the agency's bank account has changed, with the new account's details. */
export function BankAccountNotice() {
  const { bank, accountName, sortCode, accountNumber } = agencyDetails.bankAccount;
  return (
    <Notice aria-label="New bank account">
      <p>Please note: we have a new bank account. Please pay all commission into the new account.</p>
      <p>
        {accountName}, {bank}: sort code {sortCode}, account number {accountNumber}.
      </p>
    </Notice>
  );
}
