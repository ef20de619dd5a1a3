import dayjs from 'dayjs';
import { useNavigate } from 'react-router-dom';
import { Button } from '../../../components/button';
import { SearchField, useListQuery } from '../../../components/list-controls';
import { LoadState } from '../../../components/load-state';
import { FilterBar, FilterItem } from '../../../components/month-filter';
import { PageHeading } from '../../../components/page-heading';
import { Select } from '../../../components/select';
import { MONTH_OPTIONS, yearOptions } from '../../../lib/calendar-month';
import { useAgencyToday, useCurrentUser } from '../../../lib/current-user';
import { useLiveRefresh } from '../../../lib/live-updates';
import { useLoader } from '../../../lib/use-loader';
import { CONSULTATION_SORTS, type ConsultationsQuery, fetchConsultations } from '../api';
import { ConsultationsTable } from '../components/consultations-table';

const loadConsultations = (query: ConsultationsQuery, signal: AbortSignal) => fetchConsultations(query, signal);

/**
 * consultations: every consultation, newest first, with its family invoice (admins only); searched
 * by the family's or the child's name, filtered by year and month, sorted by a column (the address
 * keeps all of them).
 */
export function ConsultationsPage() {
  const navigate = useNavigate();
  const today = dayjs(useAgencyToday());
  const list = useListQuery(CONSULTATION_SORTS, { sort: 'date', order: 'desc' });
  const { q, sort, order } = list.query;
  // A year or month typed into the address that is none is no filter.
  const year = /^\d{4}$/.test(list.params.get('year') ?? '') ? (list.params.get('year') ?? '') : '';
  const month = /^([1-9]|1[0-2])$/.test(list.params.get('month') ?? '') ? (list.params.get('month') ?? '') : '';
  const { state, retry, refresh } = useLoader(loadConsultations, {
    year: year || undefined,
    month: month || undefined,
    q: q || undefined,
    sort,
    order,
  });
  // Invoices and credit notes are issued by a workflow a moment after the command: the list
  // follows them (and other admins' changes) without a reload.
  useLiveRefresh(['consultations', 'family-invoices'], refresh);
  // An auditor reads the list and changes nothing.
  const admin = useCurrentUser().role === 'admin';
  return (
    <>
      <PageHeading title="Consultations">
        {admin ? (
          <Button type="button" onClick={() => navigate('/consultations/new')}>
            New Consultation
          </Button>
        ) : null}
      </PageHeading>
      <FilterBar>
        <FilterItem>
          <Select
            id="consultations-year"
            label="Year"
            value={year}
            options={[
              { value: '', label: 'All years' },
              ...yearOptions(today).map((option) => ({ value: String(option), label: String(option) })),
            ]}
            onChange={(event) => list.setParam('year', event.target.value)}
          />
        </FilterItem>
        <FilterItem>
          <Select
            id="consultations-month"
            label="Month"
            value={month}
            options={[{ value: '', label: 'All months' }, ...MONTH_OPTIONS]}
            onChange={(event) => list.setParam('month', event.target.value)}
          />
        </FilterItem>
        <FilterItem wide>
          <SearchField id="consultation-search" label="Search by name" value={q} onSearch={list.search} />
        </FilterItem>
      </FilterBar>
      <LoadState state={state} onRetry={retry}>
        {(consultations) => (
          <ConsultationsTable
            consultations={consultations}
            admin={admin}
            onChanged={refresh}
            sorted={list.sorted}
            onSort={list.sortBy}
          />
        )}
      </LoadState>
    </>
  );
}
