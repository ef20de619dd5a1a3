import { AsOfControl } from '../../../components/as-of';
import { ButtonLink } from '../../../components/button';
import { LoadState } from '../../../components/load-state';
import { PageHeading } from '../../../components/page-heading';
import { SelectionFilter } from '../../../components/selection-filter';
import { useAsOf } from '../../../lib/as-of';
import { monthTitle } from '../../../lib/calendar-month';
import { isOffice, useCurrentUser } from '../../../lib/current-user';
import { useGlobalSelection } from '../../../lib/global-selection';
import { useLiveRefresh } from '../../../lib/live-updates';
import { useLoader } from '../../../lib/use-loader';
import { fetchInvoices, fetchTutorOptions, type InvoicesQuery } from '../api';
import { BankAccountNotice } from '../components/bank-account-notice';
import { InvoicesTable } from '../components/invoices-table';

const loadInvoices = (query: InvoicesQuery & { asOf: string }, signal: AbortSignal) => fetchInvoices(query, signal);
const loadTutors = (staff: boolean, signal: AbortSignal) => (staff ? fetchTutorOptions(signal) : Promise.resolve([]));

/** invoices: the month's invoices with totals; month, year and tutor live in the address. */
export function InvoicesPage() {
  const user = useCurrentUser();
  const staff = isOffice(user);
  const { selection, select } = useGlobalSelection(staff);
  const tutorId = staff ? selection.tutorId : '';
  const selected = { year: selection.year, month: selection.month };

  const { asOf } = useAsOf();
  const invoices = useLoader(loadInvoices, { ...selected, tutorId: tutorId || undefined, asOf });
  useLiveRefresh(['invoices'], invoices.refresh);
  const tutors = useLoader(loadTutors, staff);

  return (
    <>
      <PageHeading title="Invoices">
        {/* What the agency pays tutors for the lessons it sells (docs/money-models.md). */}
        <ButtonLink to="/invoices/pay-statements" variant="secondary">
          Pay statements
        </ButtonLink>
      </PageHeading>
      <BankAccountNotice />
      <SelectionFilter
        id="invoices"
        selection={selection}
        onSelect={select}
        tutors={staff ? (tutors.state.data ?? []) : undefined}
      />
      <AsOfControl id="invoices" />
      <LoadState state={invoices.state} onRetry={invoices.retry}>
        {(data) => (
          <InvoicesTable
            data={data}
            staff={staff}
            admin={user.role === 'admin'}
            emptyText={`No invoices for ${monthTitle(selected)}`}
            onPaid={invoices.reload}
          />
        )}
      </LoadState>
    </>
  );
}
