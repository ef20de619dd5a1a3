import { toCsv } from '@agency/contracts/csv';
import { css, Global, useTheme } from '@emotion/react';
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
 * The register on paper (A4): only the page's heading and the registers, never the app's shell
 * (header, menu, banners) nor the page's controls; the table at the page's width, its header on
 * every sheet, a child's row never split, allergies in red. Whatever the shell is made of, every
 * element that is not the register, inside it or one of its ancestors is left out.
 */
function RegisterPrintStyles() {
  const theme = useTheme();
  return (
    <Global
      styles={css`
        @media print {
          @page {
            size: A4 portrait;
            margin: 12mm;
          }
          body :not(:has([data-print-register])):not([data-print-register]):not([data-print-register] *) {
            display: none !important;
          }
          :has([data-print-register]) {
            margin: 0 !important;
            padding: 0 !important;
            max-width: none !important;
            background: none !important;
            box-shadow: none !important;
          }
          [data-print-register] [data-print-hide] {
            display: none !important;
          }
          [data-print-register] {
            font-size: 9.5pt;
            color: #000;
          }
          [data-print-register] h1 {
            font-size: 15pt;
            margin: 0 0 4mm;
          }
          [data-print-register] section {
            border: none;
            padding: 0;
            margin: 0 0 6mm;
          }
          [data-print-register] h2 {
            font-size: 12pt;
            margin: 0 0 2mm;
            break-after: avoid;
          }
          [data-print-register] [role='region'] {
            overflow: visible;
            border: none;
          }
          [data-print-register] th,
          [data-print-register] td {
            padding: 1.2mm 1.5mm;
            color: #000;
            border-bottom: 0.3mm solid #777;
          }
          [data-print-register] tr {
            break-inside: avoid;
          }
          [data-print-register] td.register-allergies,
          [data-print-register] td.register-allergies * {
            color: ${theme.colors.danger};
            font-weight: 700;
            print-color-adjust: exact;
            -webkit-print-color-adjust: exact;
          }
        }
      `}
    />
  );
}

/**
 * reports/workshops: per event its description and date-time and, where there are registrations,
 * the register (allergies prominent); upcoming events unless a range is chosen; printable on A4
 * (RegisterPrintStyles), CSV.
 */
export function WorkshopsReportPage() {
  const [range, setRange] = useState({ from: '', to: '' });
  const { state, retry } = useLoader(loadReport, range);
  return (
    <div data-print-register>
      <RegisterPrintStyles />
      <PageHeading title="Workshops Report" />
      <FieldRow data-print-hide>
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
            <ButtonRow data-print-hide>
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
                  <RegistrationsTable
                    registrations={registrations}
                    caption={`Register: ${event.description}, ${formatDateTime(event.dateTime)}`}
                  />
                ) : (
                  <p>No registrations.</p>
                )}
              </Panel>
            ))}
          </>
        )}
      </LoadState>
    </div>
  );
}
