import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { csvFileText, type ImportAnswer, type ImportRowAnswer, importKind, importSummaryOf } from '@agency/contracts';
import { configFromEnvironment } from './config';
import { printable, rowLine } from './import-lines';
import { startProduct } from './product';

const USAGE = `Usage: npm run import -- FILE --kind families|tutors|engagements [--key reference] [--dry-run]

Brings a CSV file (as the templates of Settings → Import lay it out) into the product, through the
same route as the Import screen: --dry-run says what each row would do and writes nothing; without
it, each row is created, updated or left unchanged, and a row refused says why. Running the same
file again creates nothing new. See docs/import.md.`;

/** Rows sent per request of the real run: each answer moves the progress line on. */
const ROWS_PER_REQUEST = 500;

function fail(message: string): never {
  console.error(`${message}\n\n${USAGE}`);
  process.exit(1);
}

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    kind: { type: 'string' },
    key: { type: 'string', default: 'reference' },
    'dry-run': { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const [file] = positionals;
if (!file) fail('Name the CSV file to import.');
const kind = importKind.safeParse(values.kind);
if (!kind.success) fail('--kind must be families, tutors or engagements.');
let csv: string;
try {
  csv = csvFileText(readFileSync(file));
} catch (error) {
  fail(`Cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
}
const dryRun = values['dry-run'] ?? false;

// Runs the real services on a spare port beside (or instead of) `npm start`, and imports through them.
const product = await startProduct({ ...configFromEnvironment(), port: 0 }, { log: () => {}, logLevel: 'warn' });
try {
  const admin = await product.command.accounts.firstAdmin();
  if (!admin) throw new Error('There is no admin to import as.');
  const token = await product.command.signSession(admin);
  const send = async (offset: number, limit?: number): Promise<ImportAnswer> => {
    const response = await product.command.app.inject({
      method: 'POST',
      url: '/api/import',
      payload: { kind: kind.data, csv, key: values.key, dryRun, offset, ...(limit ? { limit } : {}) },
      headers: { authorization: `Bearer ${token}` },
    });
    const answer = response.json();
    if (response.statusCode !== 200) throw new Error(answer.error?.message ?? response.body);
    return answer;
  };
  const rows: ImportRowAnswer[] = [];
  // A dry run is one request (a row is judged after the rows above it); the real run goes in parts.
  let answer = await send(0, dryRun ? undefined : ROWS_PER_REQUEST);
  for (;;) {
    rows.push(...answer.rows);
    for (const row of answer.rows) console.log(rowLine(row, dryRun));
    // An empty part ends it too: a file changed under a run never loops it forever.
    if (rows.length >= answer.totalRows || answer.rows.length === 0) break;
    process.stderr.write(`${rows.length} of ${answer.totalRows} rows\n`);
    answer = await send(rows.length, ROWS_PER_REQUEST);
  }
  const summary = importSummaryOf(rows);
  const [create, update] = dryRun ? ['would create', 'would update'] : ['created', 'updated'];
  console.log(
    `${summary.rows} rows: ${summary.create} ${create}, ${summary.update} ${update}, ${summary.unchanged} unchanged, ${summary.refused} refused.`,
  );
  if (summary.refused > 0) process.exitCode = 2;
} catch (error) {
  console.error(`Could not import ${file}: ${printable(error instanceof Error ? error.message : String(error))}`);
  process.exitCode = 1;
} finally {
  await product.stop();
}
process.exit(process.exitCode ?? 0);
