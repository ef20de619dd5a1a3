import type { FamilyInvoiceLine, LessonInvoiceAnswer, TutorBilledLesson } from '@agency/contracts';
import { toPounds } from '@agency/domain';
import { notFound } from '@agency/platform';
import type pg from 'pg';

type Row = {
  id: string;
  reference: string;
  billed_kind: string;
  billed_id: string;
  lines: FamilyInvoiceLine[];
  names: Record<string, string>;
  tutor_billed: TutorBilledLesson[];
  vat_pence: string;
  total_pence: string;
};

/**
 * A family invoice's lines as issued, a lessons invoice's naming their lessons (docs/money-models.md, "Family lesson invoices"), for
 * `GET /api/family-invoices/lines/{id}`: the children and tutors by the names the invoice holds
 * ("Erased" blanks them once the family is erased), money in pounds, durations in hours.
 */
export async function lessonInvoiceLines(db: pg.Pool, id: string): Promise<LessonInvoiceAnswer> {
  const { rows } = await db.query<Row>(
    `select id, reference, billed_kind, billed_id, lines, names, tutor_billed, vat_pence, total_pence from family_invoices
      where id = $1`,
    [id],
  );
  const invoice = rows[0];
  if (!invoice) throw notFound('There is no such invoice.');
  const name = (id: string) => invoice.names[id] ?? 'Erased';
  // Any other invoice's lines (a consultation, workshops, a late fee) name no lesson: `other`.
  const lines = invoice.lines.map(({ description, amountPence, vatPence = 0, lesson }, index) => ({
    kind: lesson?.kind ?? ('other' as const),
    lessonId: lesson?.lessonId ?? `line-${index + 1}`,
    date: lesson?.date ?? '',
    child: lesson ? name(lesson.studentId) : '',
    tutor: lesson ? name(lesson.tutorId) : '',
    hours: lesson ? lesson.duration / 100 : 0,
    rate: lesson ? toPounds(lesson.ratePence) : 0,
    description,
    amount: toPounds(amountPence),
    vat: toPounds(vatPence),
  }));
  const netPence = invoice.lines.reduce((sum, line) => sum + line.amountPence, 0);
  return {
    id: invoice.id,
    reference: invoice.reference,
    month: invoice.billed_kind === 'lessons' ? invoice.billed_id : '',
    lines,
    net: toPounds(netPence),
    vat: toPounds(Number(invoice.vat_pence)),
    total: toPounds(Number(invoice.total_pence)),
    tutorBilled: invoice.tutor_billed.map((lesson) => ({
      date: lesson.date,
      child: name(lesson.studentId),
      tutor: name(lesson.tutorId),
      hours: lesson.duration / 100,
      amount: toPounds(lesson.amountPence),
    })),
  };
}
