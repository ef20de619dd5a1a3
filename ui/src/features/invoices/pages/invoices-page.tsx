import { useSearchParams } from 'react-router-dom';
import { LoadState } from '../../../components/load-state';
import { FilterItem, MonthFilter } from '../../../components/month-filter';
import { PageHeading } from '../../../components/page-heading';
import { Select } from '../../../components/select';
import { type CalendarMonth, monthFromSearch, monthTitle } from '../../../lib/calendar-month';
import { useCurrentUser } from '../../../lib/current-user';
import { useLoader } from '../../../lib/use-loader';
import { fetchInvoices, fetchTutorOptions, type InvoicesQuery } from '../api';
import { BankAccountNotice } from '../components/bank-account-notice';
import { InvoicesTable } from '../components/invoices-table';

const loadInvoices = (query: InvoicesQuery, signal: AbortSignal) => fetchInvoices(query, signal);
const loadTutors = (staff: boolean, signal: AbortSignal) => (staff ? fetchTutorOptions(signal) : Promise.resolve([]));

/** invoices: the month's invoices with totals; month, year and tutor live in the address. */
export function InvoicesPage() {
  const user = useCurrentUser();
  const [params, setParams] = useSearchParams();
  const staff = user.role === 'admin' || user.role === 'partner';
  const selected = monthFromSearch(params);
  const tutorId = staff ? params.get('tutorId') || '' : '';

  const select = (next: Partial<CalendarMonth & { tutorId: string }>) => {
    const values = { ...selected, tutorId, ...next };
    const search = new URLSearchParams({ year: String(values.year), month: String(values.month) });
    if (values.tutorId) search.set('tutorId', values.tutorId);
    setParams(search, { replace: true });
  };

  const invoices = useLoader(loadInvoices, { ...selected, tutorId: tutorId || undefined });
  const tutors = useLoader(loadTutors, staff);
  const tutorOptions = [
    { value: '', label: 'All tutors' },
    ...(tutors.state.data ?? []).map((tutor) => ({ value: tutor.id, label: tutor.name })),
  ];

  return (
    <>
      <PageHeading title="Invoices" />
      <BankAccountNotice />
      <MonthFilter id="invoices" value={selected} onChange={select}>
        {staff ? (
          <FilterItem wide>
            <Select
              id="invoices-tutor"
              label="Tutor"
              value={tutorId}
              options={tutorOptions}
              onChange={(event) => select({ tutorId: event.target.value })}
            />
          </FilterItem>
        ) : null}
      </MonthFilter>
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
