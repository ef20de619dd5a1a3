import type { InvoiceAnswer } from '@agency/contracts';
import { todayIn } from '@agency/domain';
import type { RunningProduct } from '../product';
import { getAs, inParallel, postAs } from './demo-requests';

type Taught = { startDate: string; endDate: string | null };
type TutorDetail = { tutor: { currentStudents: Taught[]; formerStudents: Taught[] } };

/** Only a month in which the tutor had an engagement can be invoiced (the product refuses the rest). */
const taughtIn = (detail: TutorDetail, first: string, last: string) =>
  [...detail.tutor.currentStudents, ...detail.tutor.formerStudents].some(
    (student) => student.startDate <= last && (student.endDate === null || student.endDate >= first),
  );

/** What happens to a tutor's invoice for a month: nothing yet, generated, confirmed, or paid (in full or in part). */
type Step = 'none' | 'generated' | 'confirmed' | 'paid' | 'part-paid';

/**
 * Three months back nearly everything is settled, two months back invoices are in every state,
 * last month some are only generated and the rest not made yet, so the report shows each group.
 */
function stepFor(monthsBack: number, tutorIndex: number): Step {
  if (monthsBack === 3) return tutorIndex % 4 === 3 ? 'confirmed' : 'paid';
  if (monthsBack === 2) return (['paid', 'confirmed', 'generated', 'part-paid'] as const)[tutorIndex % 4]!;
  return tutorIndex % 2 === 0 ? 'generated' : 'none';
}

/**
 * Invoices for the last three months through the real routes, as the tutors' own admin would
 * make them: generate (which locks the month's lessons), confirm, record payments. Call it after
 * the lessons are seeded: an invoice is made from the month's lessons as they are then.
 */
export async function seedInvoices(product: RunningProduct, token: string, timeZone = 'Europe/London') {
  const post = postAs(product, token);
  const get = getAs(product, token);
  const { tutors } = await get<{ tutors: { id: string }[] }>('/api/tutors?includeInactive=N');
  const details = await inParallel(tutors, (tutor) => get<TutorDetail>(`/api/tutors/${tutor.id}`));

  const today = todayIn(timeZone, new Date());
  const counts: Record<Step, number> = { none: 0, generated: 0, confirmed: 0, paid: 0, 'part-paid': 0 };
  // A tutor's months in order (each invoice takes the tutor's next reference); the tutors a few at a time.
  await inParallel(tutors, async (tutor, index) => {
    for (const monthsBack of [3, 2, 1]) {
      const first = new Date(`${today.slice(0, 7)}-01T00:00:00Z`);
      first.setUTCMonth(first.getUTCMonth() - monthsBack);
      const year = first.getUTCFullYear();
      const month = first.getUTCMonth() + 1;
      const last = new Date(Date.UTC(year, month, 0)).toISOString().slice(0, 10);
      let step = stepFor(monthsBack, index);
      if (step === 'none' || !taughtIn(details[index]!, first.toISOString().slice(0, 10), last)) {
        counts.none++;
        continue;
      }
      const { invoice } = await post<InvoiceAnswer>('/api/invoices/save', { tutorId: tutor.id, year, month });
      if (step !== 'generated') await post('/api/invoices/confirm', { id: invoice.id });
      // A month with no lessons has nothing to pay: it stays confirmed.
      if ((step === 'paid' || step === 'part-paid') && invoice.commission > 0) {
        const pence = Math.round(invoice.commission * 100);
        const amount = step === 'paid' ? pence : Math.max(1, Math.floor(pence / 2));
        await post('/api/invoices/payment', { invoiceId: invoice.id, date: today, amount: (amount / 100).toFixed(2) });
      } else if (step !== 'generated') {
        step = 'confirmed';
      }
      counts[step]++;
    }
  });
  return `${counts.paid + counts['part-paid'] + counts.confirmed + counts.generated} invoices (${counts.paid} paid, ${counts['part-paid']} part-paid, ${counts.confirmed} confirmed and unpaid, ${counts.generated} awaiting confirmation; ${counts.none} tutor-months not invoiced yet)`;
}
