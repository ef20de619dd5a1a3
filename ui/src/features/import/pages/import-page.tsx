import { csvFileText, IMPORT_KINDS, type ImportRowAnswer, importSummaryOf, LIMITS } from '@agency/contracts';
import styled from '@emotion/styled';
import { type FormEvent, useState } from 'react';
import { ErrorAlert } from '../../../components/alert';
import { Button, ButtonRow } from '../../../components/button';
import { Field } from '../../../components/field';
import { FieldRow, FormPanel } from '../../../components/form-layout';
import { PageHeading } from '../../../components/page-heading';
import { Select } from '../../../components/select';
import { SettingsNav } from '../../../components/settings-nav';
import { EmptyRow, Table, TableWrap, Td, Th } from '../../../components/table';
import { TextField } from '../../../components/text-field';
import { errorMessage } from '../../../lib/http';
import { type ImportAnswer, type ImportKind, sendImport, templateUrl } from '../api';

/** Rows per request of the real run: each answer moves the progress bar on. */
const ROWS_PER_PART = 200;

const KIND_NAMES: Record<ImportKind, string> = { families: 'Families', tutors: 'Tutors', engagements: 'Engagements' };

const OUTCOME_WORDS: Record<ImportRowAnswer['outcome'], [dryRun: string, done: string]> = {
  create: ['Would create', 'Created'],
  update: ['Would update', 'Updated'],
  unchanged: ['Unchanged', 'Unchanged'],
  refused: ['Refused', 'Refused'],
};

const Hint = styled.p(({ theme }) => ({ color: theme.colors.muted, fontSize: '0.95rem', margin: '0 0 1rem' }));
const Section = styled.section({ marginTop: '2rem', '& h2': { fontSize: '1.2rem', margin: '0 0 0.75rem' } });
const FileInput = styled.input(({ theme }) => ({
  font: 'inherit',
  padding: '0.4rem 0',
  color: theme.colors.text,
  maxWidth: '28rem',
}));
const Progress = styled.progress({ width: '100%', maxWidth: '28rem', height: '1.25rem' });
const Refused = styled.span(({ theme }) => ({ color: theme.colors.danger, fontWeight: 600 }));

type Stage =
  | { step: 'choose' }
  | { step: 'checking' }
  | { step: 'checked'; answer: ImportAnswer }
  | { step: 'importing'; done: number; total: number }
  | { step: 'imported'; answer: ImportAnswer };

function summaryLine({ summary, dryRun }: ImportAnswer) {
  const [create, update] = dryRun ? ['would be created', 'would be updated'] : ['created', 'updated'];
  return `${summary.rows} rows: ${summary.create} ${create}, ${summary.update} ${update}, ${summary.unchanged} unchanged, ${summary.refused} refused.`;
}

function RowsTable({ answer, caption }: { answer: ImportAnswer; caption: string }) {
  return (
    <TableWrap aria-label={caption}>
      <Table>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <Th scope="col">Row</Th>
            <Th scope="col">Reference</Th>
            <Th scope="col">Outcome</Th>
            <Th scope="col">Reason</Th>
          </tr>
        </thead>
        <tbody>
          {answer.rows.length === 0 && (
            <tr>
              <EmptyRow colSpan={4}>The file has no rows under its header.</EmptyRow>
            </tr>
          )}
          {answer.rows.map((row) => {
            const words = OUTCOME_WORDS[row.outcome][answer.dryRun ? 0 : 1];
            return (
              <tr key={row.row}>
                <Td>{row.row}</Td>
                <Td>{row.key}</Td>
                <Td>{row.outcome === 'refused' ? <Refused>{words}</Refused> : words}</Td>
                <Td>{row.reason ?? ''}</Td>
              </tr>
            );
          })}
        </tbody>
      </Table>
    </TableWrap>
  );
}

/**
 * Settings → Import (admins): choose what the file holds, download its template, pick the file,
 * check it (a dry run: each row's outcome, nothing written), then import it with a progress bar
 * and a summary. Running the same file again creates nothing new (docs/import.md).
 */
export function ImportPage() {
  const [kind, setKind] = useState<ImportKind>('families');
  const [key, setKey] = useState('reference');
  const [file, setFile] = useState<{ name: string; text: string } | null>(null);
  const [stage, setStage] = useState<Stage>({ step: 'choose' });
  const [failure, setFailure] = useState<string | null>(null);

  const restart = () => {
    setStage({ step: 'choose' });
    setFailure(null);
  };

  const pickFile = async (picked: File | undefined) => {
    restart();
    setFile(null);
    if (!picked) return;
    if (picked.size > LIMITS.maxImportCharacters * 4) {
      setFailure('The file is too large: split it into smaller files.');
      return;
    }
    try {
      // UTF-8, or UTF-16 as Excel's "Unicode text" saves it; anything else is refused here, in words.
      setFile({ name: picked.name, text: csvFileText(new Uint8Array(await picked.arrayBuffer())) });
    } catch (error) {
      setFailure(errorMessage(error));
    }
  };

  const check = async (event: FormEvent) => {
    event.preventDefault();
    if (!file) {
      setFailure('Choose the CSV file to import.');
      return;
    }
    setFailure(null);
    setStage({ step: 'checking' });
    try {
      setStage({ step: 'checked', answer: await sendImport({ kind, csv: file.text, key, dryRun: true }) });
    } catch (error) {
      setFailure(errorMessage(error));
      setStage({ step: 'choose' });
    }
  };

  const runImport = async (total: number) => {
    if (!file) return;
    setFailure(null);
    const rows: ImportRowAnswer[] = [];
    setStage({ step: 'importing', done: 0, total });
    try {
      while (rows.length < total) {
        const part = await sendImport({
          kind,
          csv: file.text,
          key,
          dryRun: false,
          offset: rows.length,
          limit: ROWS_PER_PART,
        });
        if (part.rows.length === 0) break;
        rows.push(...part.rows);
        setStage({ step: 'importing', done: rows.length, total });
      }
      setStage({
        step: 'imported',
        answer: { kind, dryRun: false, totalRows: total, rows, summary: importSummaryOf(rows) },
      });
    } catch (error) {
      // What was imported stands, and importing the file again completes it (nothing twice).
      setFailure(`${errorMessage(error)} The rows before it were imported; import the file again to finish.`);
      setStage({ step: 'choose' });
    }
  };

  const busy = stage.step === 'checking' || stage.step === 'importing';
  const checked = stage.step === 'checked' ? stage.answer : null;
  const toWrite = checked ? checked.summary.create + checked.summary.update : 0;

  return (
    <>
      <PageHeading title="Settings" />
      <SettingsNav />
      <FormPanel onSubmit={check} aria-label="Import a CSV file" noValidate>
        <Hint>
          Bring in families (with their contact and children), tutors, or engagements from a spreadsheet saved as CSV.
          Each row is keyed by your own reference: importing the same file again creates nothing new.
        </Hint>
        <FieldRow>
          <Select
            id="import-kind"
            label="What the file holds"
            value={kind}
            disabled={busy}
            options={IMPORT_KINDS.map((value) => ({ value, label: KIND_NAMES[value] }))}
            onChange={(event) => {
              setKind(event.target.value as ImportKind);
              restart();
            }}
          />
          <TextField
            id="import-key"
            label="Key column"
            value={key}
            disabled={busy}
            onChange={(event) => {
              setKey(event.target.value);
              restart();
            }}
          />
        </FieldRow>
        <p>
          <a href={templateUrl(kind)} download>
            Download the {KIND_NAMES[kind].toLowerCase()} template
          </a>
        </p>
        <Field id="import-file" label="CSV file" required>
          <FileInput
            id="import-file"
            type="file"
            accept=".csv,text/csv"
            aria-required
            disabled={busy}
            onChange={(event) => void pickFile(event.target.files?.[0])}
          />
        </Field>
        {failure && <ErrorAlert>{failure}</ErrorAlert>}
        <ButtonRow>
          <Button type="submit" disabled={busy || !file}>
            {stage.step === 'checking' ? 'Checking…' : 'Check file'}
          </Button>
        </ButtonRow>
      </FormPanel>

      {checked && (
        <Section aria-labelledby="import-check">
          <h2 id="import-check">What importing {file?.name ?? 'the file'} would do</h2>
          <p role="status">{summaryLine(checked)}</p>
          <ButtonRow>
            <Button type="button" onClick={() => void runImport(checked.totalRows)} disabled={toWrite === 0}>
              Import {toWrite} {toWrite === 1 ? 'row' : 'rows'}
            </Button>
            <Button type="button" variant="secondary" onClick={restart}>
              Not now
            </Button>
          </ButtonRow>
          <RowsTable answer={checked} caption="Each row's outcome if imported" />
        </Section>
      )}

      {stage.step === 'importing' && (
        <Section aria-labelledby="import-progress">
          <h2 id="import-progress">Importing…</h2>
          <Progress aria-labelledby="import-progress" max={stage.total} value={stage.done} />
          <p role="status">
            {stage.done} of {stage.total} rows done
          </p>
        </Section>
      )}

      {stage.step === 'imported' && (
        <Section aria-labelledby="import-done">
          <h2 id="import-done">Imported</h2>
          <p role="status">{summaryLine(stage.answer)}</p>
          <RowsTable answer={stage.answer} caption="Each row's outcome" />
        </Section>
      )}
    </>
  );
}
