import styled from '@emotion/styled';
import dayjs from 'dayjs';
import { useState } from 'react';
import { Button } from '../../../components/button';
import { FieldRow, FormPanel } from '../../../components/form-layout';
import { PageHeading } from '../../../components/page-heading';
import { Select } from '../../../components/select';
import { TextField } from '../../../components/text-field';
import { useAgencyToday } from '../../../lib/current-user';
import { downloadExport, type ExportChoice } from '../api';

const Note = styled.p(({ theme }) => ({ color: theme.colors.muted, maxWidth: '44rem' }));
const Mark = styled.p({ fontWeight: 600 });
const Failure = styled.p(({ theme }) => ({ color: theme.colors.danger }));

/**
 * reports/accounting-export (admins and auditors): a period's sales invoices (tutors' commission
 * and families'), credit notes and payments as CSV for Xero or QuickBooks (docs/accounting-export.md).
 * Each download shows its mark: given as "Only what is new since", the next export holds only the rows
 * recorded after it.
 */
export function AccountingExportPage() {
  const today = dayjs(useAgencyToday());
  const lastMonth = today.subtract(1, 'month');
  const [choice, setChoice] = useState<ExportChoice>({
    from: lastMonth.startOf('month').format('YYYY-MM-DD'),
    to: lastMonth.endOf('month').format('YYYY-MM-DD'),
    layout: 'xero',
    part: 'sales',
    since: '',
  });
  const [mark, setMark] = useState('');
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const change = (next: Partial<ExportChoice>) => setChoice((was) => ({ ...was, ...next }));

  const download = async () => {
    setBusy(true);
    setFailure(null);
    try {
      const { file, mark: given, name } = await downloadExport(choice);
      const link = document.createElement('a');
      link.href = URL.createObjectURL(file);
      link.download = name;
      link.click();
      URL.revokeObjectURL(link.href);
      setMark(given);
    } catch (error) {
      setFailure(error instanceof Error ? error.message : String(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <PageHeading title="Accountant's Export" />
      <Note>
        Every row has an id of its own and the same period always gives the same file, so an accounting tool can
        recognise rows it already has. Amounts are in pounds; credit notes are negative.
      </Note>
      <FormPanel
        aria-label="Export"
        onSubmit={(event) => {
          event.preventDefault();
          void download();
        }}
      >
        <FieldRow>
          <TextField
            id="from"
            label="From"
            type="date"
            value={choice.from}
            onChange={(e) => change({ from: e.target.value })}
          />
          <TextField
            id="to"
            label="To"
            type="date"
            value={choice.to}
            onChange={(e) => change({ to: e.target.value })}
          />
          <Select
            id="layout"
            label="Layout"
            value={choice.layout}
            options={[
              { value: 'xero', label: 'Xero' },
              { value: 'quickbooks', label: 'QuickBooks' },
            ]}
            onChange={(e) => change({ layout: e.target.value as ExportChoice['layout'] })}
          />
          <Select
            id="part"
            label="What"
            value={choice.part}
            options={[
              { value: 'sales', label: 'Invoices and credit notes' },
              { value: 'payments', label: 'Payments' },
            ]}
            onChange={(e) => change({ part: e.target.value as ExportChoice['part'] })}
          />
        </FieldRow>
        <TextField
          id="since"
          label="Only what is new since (an earlier export's mark; blank: everything)"
          value={choice.since}
          onChange={(e) => change({ since: e.target.value })}
        />
        <Button type="submit" disabled={busy}>
          {busy ? 'Exporting…' : 'Download CSV'}
        </Button>
        {failure ? <Failure role="alert">{failure}</Failure> : null}
        {mark ? <Mark role="status">This export's mark: {mark}</Mark> : null}
      </FormPanel>
    </>
  );
}
