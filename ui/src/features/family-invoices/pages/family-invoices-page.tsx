import styled from '@emotion/styled';
import dayjs from 'dayjs';
import { useSearchParams } from 'react-router-dom';
import { LoadState } from '../../../components/load-state';
import { FilterBar, FilterItem } from '../../../components/month-filter';
import { PageHeading } from '../../../components/page-heading';
import { Pager, useCursorPages } from '../../../components/pager';
import { Select } from '../../../components/select';
import { Typeahead } from '../../../components/typeahead';
import { MONTH_OPTIONS, yearOptions } from '../../../lib/calendar-month';
import { useAgencyToday, useCurrentUser } from '../../../lib/current-user';
import { FAMILY_INVOICE_STATE_LABELS, type FamilyOption, fetchFamilyOptions } from '../../../lib/family-invoices';
import { useLiveRefresh } from '../../../lib/live-updates';
import { matchNames } from '../../../lib/name-match';
import { useLoader } from '../../../lib/use-loader';
import { fetchLedger, filtersFromSearch, type LedgerFilters, ledgerCsvUrl, ledgerSearch } from '../api';
import { BillLessonsForm } from '../components/bill-lessons-form';
import { LedgerTable } from '../components/ledger-table';

const Download = styled.a(({ theme }) => ({ color: theme.colors.primary, fontWeight: 600 }));
// Labels in a row: the family's typeahead keeps a line under it for its hints, which the selects have not.
const Filters = styled(FilterBar)({ alignItems: 'flex-start' });

const loadFamilies = (_: 'all', signal: AbortSignal) => fetchFamilyOptions(true, signal);
const loadLedger = (query: LedgerFilters & { cursor?: string }, signal: AbortSignal) => fetchLedger(query, signal);
const familyName = (family: FamilyOption) => family.name;
const matchFamilies = (families: readonly FamilyOption[], typed: string) => matchNames(families, typed, familyName);

const STATE_OPTIONS = [
  { value: '', label: 'All states' },
  ...Object.entries(FAMILY_INVOICE_STATE_LABELS).map(([value, label]) => ({ value, label })),
];

/**
 * family-invoices: the family invoices ledger (admins, partners and auditors; the menu
 * offers it to no tutor and the server refuses one). Every family invoice (consultations and
 * workshops), credit note and payment, newest first, a page at a time, with what is owed and the
 * totals of the filtered entries; filtered by family, state and month, kept in the address so a
 * family's page can link to its own; the filtered entries download as CSV.
 */
export function FamilyInvoicesPage() {
  const [search, setSearch] = useSearchParams();
  const filters = filtersFromSearch(search);
  const agencyToday = useAgencyToday();
  const today = dayjs(agencyToday);
  const admin = useCurrentUser().role === 'admin';
  const change = (next: Partial<LedgerFilters>) => {
    const merged = { ...filters, ...next };
    setSearch(ledgerSearch(merged.year ? merged : { ...merged, month: '' }), { replace: true });
  };
  const pages = useCursorPages(filters);
  const ledger = useLoader(loadLedger, { ...filters, cursor: pages.cursor });
  const families = useLoader(loadFamilies, 'all');
  // Payments and credit notes are recorded by others (and by workflows) while the screen is open.
  useLiveRefresh(['family-invoices', 'clients'], ledger.refresh);
  const selected = families.state.data?.find((family) => family.id === filters.client) ?? null;

  return (
    <>
      <PageHeading title="Family Invoices">
        <Download href={ledgerCsvUrl(filters)} download>
          Download CSV
        </Download>
      </PageHeading>
      {admin ? <BillLessonsForm today={agencyToday} onBilled={ledger.refresh} /> : null}
      <Filters>
        <FilterItem wide>
          <Typeahead
            id="ledger-family"
            label="Family"
            noun="families"
            placeholder="All families: type a name"
            required={false}
            state={families.state}
            retry={families.retry}
            match={matchFamilies}
            textOf={familyName}
            selected={selected}
            onSelect={(family) => change({ client: family?.id ?? '' })}
          />
        </FilterItem>
        <FilterItem>
          <Select
            id="ledger-state"
            label="State"
            value={filters.state}
            options={STATE_OPTIONS}
            onChange={(event) => change({ state: event.target.value as LedgerFilters['state'] })}
          />
        </FilterItem>
        <FilterItem>
          <Select
            id="ledger-year"
            label="Year"
            value={filters.year}
            options={[
              { value: '', label: 'All years' },
              ...yearOptions(today).map((year) => ({ value: String(year), label: String(year) })),
            ]}
            onChange={(event) => change({ year: event.target.value })}
          />
        </FilterItem>
        <FilterItem>
          <Select
            id="ledger-month"
            label="Month"
            value={filters.month}
            disabled={!filters.year}
            options={[{ value: '', label: 'All months' }, ...MONTH_OPTIONS]}
            onChange={(event) => change({ month: event.target.value })}
          />
        </FilterItem>
      </Filters>
      <LoadState state={ledger.state} onRetry={ledger.retry}>
        {(answer) => (
          <>
            <LedgerTable answer={answer} onChanged={ledger.refresh} />
            <Pager paging={pages.paging(answer, answer.entries.length)} label="Family invoices" />
          </>
        )}
      </LoadState>
    </>
  );
}
