import { addDays, todayIn } from '@agency/domain';
import type { RunningProduct } from '../product';
import { getAs, postAs } from './demo-requests';

type Saved = { consultation: { id: string; invoiceId: string; amount: number } };

/** What becomes of a consultation's invoice: paid, part-paid, left unpaid, or credited (cancelled, or changed after issue). */
const FATES = ['paid', 'part-paid', 'unpaid', 'paid', 'cancelled', 'changed'] as const;
type Fate = (typeof FATES)[number];

/**
 * Consultations over the last three months through the real routes, every third with an
 * assessment, for children of the active families: each issues its family invoice at once, and
 * the invoices end in every state (paid, part-paid, unpaid, credited by a credit note).
 */
export async function seedConsultations(product: RunningProduct, token: string, timeZone = 'Europe/London') {
  const get = getAs(product, token);
  const post = postAs(product, token);
  const { clients } = await get<{ clients: { id: string }[] }>('/api/clients?includeInactive=N');
  const today = todayIn(timeZone, new Date());
  const counts: Record<Fate, number> = { paid: 0, 'part-paid': 0, unpaid: 0, cancelled: 0, changed: 0 };
  let assessments = 0;
  let made = 0;
  for (const [index, client] of clients.slice(0, 18).entries()) {
    const { children } = await get<{ children: { id: string }[] }>(`/api/clients/${client.id}/children`);
    const child = children[index % Math.max(children.length, 1)];
    if (!child) continue;
    // Spread from about 90 days ago to a few days ago.
    const date = addDays(today, -(3 + ((index * 37) % 88)));
    const assessment = index % 3 === 0;
    const body = {
      client: client.id,
      child: child.id,
      date,
      assessment,
      ...(assessment ? { assessmentDetails: { subjects: index % 2 ? ['Maths'] : ['English', '11+'] } } : {}),
      ...(index % 4 === 1 ? { amount: 150 } : {}),
    };
    const { consultation } = await post<Saved>('/api/consultations', body);
    made++;
    if (assessment) assessments++;
    const fate = FATES[index % FATES.length]!;
    counts[fate]++;
    const pay = (amount: number) =>
      post('/api/family-invoices/payment', { invoiceId: consultation.invoiceId, date: addDays(date, 7), amount });
    if (fate === 'paid') await pay(consultation.amount);
    if (fate === 'part-paid') await pay(Math.floor(consultation.amount / 2));
    if (fate === 'cancelled') await post('/api/consultations/cancel', { id: consultation.id });
    if (fate === 'changed') await post('/api/consultations', { ...body, id: consultation.id, amount: 200 });
  }
  return `${made} consultations (${assessments} with assessments; invoices ${counts.paid} paid, ${counts['part-paid']} part-paid, ${counts.unpaid} unpaid, ${counts.cancelled + counts.changed} credited)`;
}
