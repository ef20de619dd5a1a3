import { toCsv } from '@agency/contracts/csv';
import { useState } from 'react';
import { Button, ButtonRow } from '../../../components/button';
import { DateField } from '../../../components/date-field';
import { FieldRow } from '../../../components/form-layout';
import { LoadState } from '../../../components/load-state';
import { PageHeading } from '../../../components/page-heading';
import { Panel, SectionHeading } from '../../../components/panel';
import { formatDateTime } from '../../../lib/format';
import { useLoader } from '../../../lib/use-loader';
import { fetchWorkshopsReport, type ReportGroup } from '../api';
import { RegistrationsTable } from '../components/registrations-table';

const loadReport = (range: { from: string; to: string }, signal: AbortSignal) => fetchWorkshopsReport(range, signal);

/**
 * The report as CSV: one row per child, with its event. Written by the product's one CSV writer
 * (docs/csv.md): a public booking's names, phone or allergies beginning with `=` reach the
 * register as text, never as a formula.
 */
export function reportCsv(groups: ReportGroup[]): string {
  const header = ['Event', 'Date', "Child's Name", "Parent's Name", 'Email', 'Phone', 'School', 'Year', 'Allergies'];
  const rows = groups.flatMap(({ event, registrations }) =>
    registrations.flatMap((r) =>
      r.children.map((child) => [
        event.description,
        event.dateTime.replace('T', ' '),
        `${child.firstName} ${child.lastName}`,
        `${r.contact.firstName} ${r.contact.lastName}`,
        r.contact.email,
        r.contact.phone,
        child.school,
        child.schoolYear,
        child.allergies ?? '',
      ]),
    ),
  );
  return toCsv([header, ...rows]);
}

function download(groups: ReportGroup[]) {
  const url = URL.createObjectURL(new Blob([reportCsv(groups)], { type: 'text/csv' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = 'workshops.csv';
  link.click();
  URL.revokeObjectURL(url);
}

/**
 * reports/workshops: per event its description and date-time and, where there are registrations,
 * the register (allergies prominent); upcoming events unless a range is chosen; printable, CSV.
 */
export function WorkshopsReportPage() {
  const [range, setRange] = useState({ from: '', to: '' });
  const { state, retry } = useLoader(loadReport, range);
  return (
    <>
      <PageHeading title="Workshops Report" />
      <FieldRow>
        <DateField
          id="from"
          label="From"
          value={range.from}
          onChange={(event) => setRange((now) => ({ ...now, from: event.target.value }))}
        />
        <DateField
          id="to"
          label="To"
          value={range.to}
          onChange={(event) => setRange((now) => ({ ...now, to: event.target.value }))}
        />
      </FieldRow>
      <LoadState state={state} onRetry={retry}>
        {(groups) => (
          <>
            <ButtonRow>
              <Button type="button" variant="secondary" onClick={() => window.print()}>
                Print Register
              </Button>
              <Button type="button" variant="secondary" onClick={() => download(groups)}>
                Export CSV
              </Button>
            </ButtonRow>
            {groups.length === 0 ? <p>No workshops in this range.</p> : null}
            {groups.map(({ event, registrations }) => (
              <Panel key={event.id} aria-label={event.description}>
                <SectionHeading>
                  {event.description}, {formatDateTime(event.dateTime)}
                </SectionHeading>
                {registrations.length > 0 ? (
                  <RegistrationsTable registrations={registrations} caption={`Register: ${event.description}`} />
                ) : (
                  <p>No registrations.</p>
                )}
              </Panel>
            ))}
          </>
        )}
      </LoadState>
    </>
  );
}
