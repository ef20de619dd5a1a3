import { familyInvoice, moneyModel, payStatement, timesheet, tutor } from '@agency/domain';
import type pg from 'pg';
import type { CommandContext } from '../pipeline/command-pipeline';

type Load = CommandContext['load'];

/**
 * The lessons among `lessonIds` whose family has paid: every family invoice that bills the lesson
 * (not credited) is paid in full, and there is at least one. Which invoices bill a lesson comes from
 * the family-billing read model `read.family_invoice_lessons`; whether each is paid, from its own
 * stream. Before that table exists no lesson is paid by its family (its pay stays held).
 */
export async function lessonsPaidByFamilies(db: pg.Pool, load: Load, lessonIds: readonly string[]) {
  const paid = new Set<string>();
  if (lessonIds.length === 0) return paid;
  const table = await db.query<{ found: string | null }>(
    "select to_regclass('read.family_invoice_lessons')::text as found",
  );
  if (!table.rows[0]?.found) return paid;
  const { rows } = await db.query<{ invoice_id: string; lesson_id: string }>(
    // A lesson recorded after its month was billed is billed by an adjustment line, never a tuition
    // one: that line bills it too (a negative one bills nothing: it gives money back).
    `select distinct invoice_id, lesson_id from read.family_invoice_lessons
      where lesson_id = any($1) and (kind = 'tuition' or (kind = 'adjustment' and amount_pence > 0))`,
    [lessonIds],
  );
  const invoicePaid = new Map<string, boolean | null>();
  for (const invoiceId of new Set(rows.map((row) => row.invoice_id))) {
    const state = await load(familyInvoice.familyInvoiceStream(invoiceId), familyInvoice.familyInvoiceDecider);
    // A credited invoice bills nothing any more: it neither holds a lesson nor releases it.
    invoicePaid.set(
      invoiceId,
      state.status === 'none' || state.creditNote ? null : familyInvoice.outstandingOf(state) === 0,
    );
  }
  const byLesson = new Map<string, (boolean | null)[]>();
  for (const row of rows)
    byLesson.set(row.lesson_id, [...(byLesson.get(row.lesson_id) ?? []), invoicePaid.get(row.invoice_id) ?? null]);
  for (const [lessonId, invoices] of byLesson) {
    const standing = invoices.filter((state) => state !== null);
    if (standing.length > 0 && standing.every(Boolean)) paid.add(lessonId);
  }
  return paid;
}

/**
 * The first month any lesson can have been sold by the agency: the earliest month an agency or an
 * engagement chose `agency-sells-tuition` from (before it every lesson is the spec's model, and no
 * statement exists), so the months before it are not read. The agency's choices come from its
 * stream; the engagements' from the money-models read model, which may lack only a choice recorded
 * a moment ago, and a choice never applies before the month it is recorded in: the month of
 * `date` (the preparation's day) bounds what it may lack.
 */
async function firstMonthSold(db: pg.Pool, agencyTerms: moneyModel.AgencyModelState, date: string): Promise<string> {
  const months = agencyTerms.choices
    .filter((choice) => choice.model === 'agency-sells-tuition')
    .map((choice) => choice.from.slice(0, 7));
  months.push(date.slice(0, 7));
  const table = await db.query<{ found: string | null }>(
    "select to_regclass('read.money_model_engagement_choices')::text as found",
  );
  if (table.rows[0]?.found) {
    const { rows } = await db.query<{ first: string | null }>(
      `select to_char(min(from_date), 'YYYY-MM') as first from read.money_model_engagement_choices
        where model = 'agency-sells-tuition'`,
    );
    if (rows[0]?.first) months.push(rows[0].first);
  } else {
    // No read model to ask: every month of the window may hold a lesson sold.
    months.push('0000-01');
  }
  return months.sort()[0] as string;
}

/**
 * Issues the tutor's pay statement of `month` (dated `date`) from the event store: the tutor's
 * timesheets and statements of the pay window, the money model of each lesson's engagement and the
 * agency's terms on its date (never a read model, but for which family invoice bills a lesson).
 * Returns the statement's state; nothing is written when it would say nothing.
 */
export async function issuePayStatement(
  context: Pick<CommandContext, 'load' | 'run'>,
  db: pg.Pool,
  { tutorId, month, date }: { tutorId: string; month: string; date: string },
): Promise<payStatement.PayStatementState> {
  const { load, run } = context;
  const stream = payStatement.payStatementStream(tutorId, month);
  const existing = await load(stream, payStatement.payStatementDecider);
  if (existing.status === 'issued') return existing;
  const person = await load(tutor.tutorStream(tutorId), tutor.tutorDecider);
  if (person.status === 'none') return existing;

  const agencyTerms = await load(moneyModel.agencyModelStream(), moneyModel.agencyModelDecider);
  const from = await firstMonthSold(db, agencyTerms, date);
  const window = payStatement.windowOf(month).filter((windowMonth) => windowMonth >= from);
  const earlier: payStatement.IssuedStatement[] = [];
  for (const before of window.filter((windowMonth) => windowMonth < month)) {
    const state = await load(payStatement.payStatementStream(tutorId, before), payStatement.payStatementDecider);
    if (state.status === 'issued') earlier.push(state.statement);
  }
  const engagementTerms = new Map<string, moneyModel.EngagementModelState>();
  const sold: (ReturnType<typeof timesheet.lessonsOf>[number] & { month: string; waits: boolean })[] = [];
  for (const lessonMonth of window) {
    const sheet = await load(timesheet.timesheetStream(tutorId, lessonMonth), timesheet.timesheetDecider);
    for (const lesson of timesheet.lessonsOf(sheet)) {
      let own = engagementTerms.get(lesson.engagementId);
      if (!own) {
        own = await load(moneyModel.engagementModelStream(lesson.engagementId), moneyModel.engagementModelDecider);
        engagementTerms.set(lesson.engagementId, own);
      }
      const terms = moneyModel.termsOn(agencyTerms, own, lesson.date);
      if (terms.model === 'agency-sells-tuition')
        sold.push({ ...lesson, month: lessonMonth, waits: terms.payAfterFamilyPays });
    }
  }
  if (sold.length === 0 && earlier.length === 0) return existing;
  const paidByFamilies = await lessonsPaidByFamilies(
    db,
    load,
    sold.filter((lesson) => lesson.waits).map((lesson) => lesson.lessonId),
  );
  // A child's family never changes: the read model's is the family's stream the document reads.
  const families = await db.query<{ id: string; client_id: string }>(
    'select id, client_id from read.children where id = any($1)',
    [[...new Set(sold.map((lesson) => lesson.studentId))]],
  );
  const familyOf = new Map(families.rows.map((row) => [row.id, row.client_id]));
  const computed = payStatement.statementLines({
    month,
    earlier,
    lessons: sold.map(({ waits, ...lesson }) => ({
      ...lesson,
      clientId: familyOf.get(lesson.studentId) ?? '',
      held: waits && !paidByFamilies.has(lesson.lessonId),
    })),
  });
  if (!computed) return existing;
  return run(stream, payStatement.payStatementDecider, {
    type: 'IssuePayStatement',
    statement: {
      statementId: payStatement.payStatementId(tutorId, month),
      tutorId,
      month,
      reference: payStatement.payStatementReference(person.invoicePrefix, month),
      date,
      ...computed,
    },
  });
}
