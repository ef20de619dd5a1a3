import { randomUUID } from 'node:crypto';
import { moneyModel, todayIn } from '@agency/domain';
import { monthBounds } from '@agency/domain/timesheet/week';
import type { RunningProduct } from '../product';
import { getAs, postAs } from './demo-requests';

type Student = { engagementId: string; studentId: string };
type TutorDetail = { tutor: { currentStudents: Student[]; formerStudents: Student[] } };
type Statement = { id: string; tutorId: string };

/** The month (`yyyy-mm`) `back` months before `today`'s. */
export function monthBefore(today: string, back: number): string {
  const date = new Date(`${today.slice(0, 7)}-01T00:00:00Z`);
  date.setUTCMonth(date.getUTCMonth() - back);
  return date.toISOString().slice(0, 7);
}

/** What the first step chose, for the second to bill: the families, tutors and engagements of the other two models. */
export type MoneyModelPlan = {
  sold: { clientId: string; family: string; engagementIds: string[]; tutorIds: string[] };
  introduced: { clientId: string; family: string; engagementId: string; tutorId: string };
};

type Terms = { rate: number; commissionPct: number; partnerPct: number; subjects: string[] };
const SOLD_TERMS: Terms[] = [
  { rate: 36, commissionPct: 25, partnerPct: 10, subjects: ['Maths'] },
  { rate: 42, commissionPct: 20, partnerPct: 0, subjects: ['English'] },
];
const INTRODUCED_TERMS: Terms = { rate: 45, commissionPct: 20, partnerPct: 10, subjects: ['Physics'] };

/**
 * The other two money models (docs/money-models.md), first step, run after the engagements and
 * before the lessons: the agency keeps the spec's model (at 20 % VAT for what it sells), and two
 * families none of whose children has a tutor yet get engagements of their own model from three
 * months back: one family's children's lessons are sold by the agency, another's tutor was
 * introduced. New engagements, so every figure of the spec's model stays as it was.
 *
 * The routes refuse a choice for a month already begun, as they should for a running agency; the
 * demo's history starts three months back, so its choices are recorded as made then (through the
 * deciders, with that day as today): nothing had been issued for these engagements before.
 * Returns null when every child already has a tutor (a very small demo).
 */
export async function chooseMoneyModels(
  product: RunningProduct,
  token: string,
  timeZone = 'Europe/London',
): Promise<MoneyModelPlan | null> {
  const get = getAs(product, token);
  const post = postAs(product, token);
  const admin = await product.command.accounts.firstAdmin();
  if (!admin) throw new Error('No admin user to choose the money models as');
  const today = todayIn(timeZone, new Date());
  const from = `${monthBefore(today, 3)}-01`;
  const act = () => product.command.actAs(admin, randomUUID()).context;
  const actor = { role: 'admin' as const };

  const { tutors } = await get<{ tutors: { id: string; startDate: string }[] }>('/api/tutors?includeInactive=N');
  const taught = new Set<string>();
  for (const tutor of tutors) {
    const { tutor: detail } = await get<TutorDetail>(`/api/tutors/${tutor.id}`);
    for (const student of [...detail.currentStudents, ...detail.formerStudents]) taught.add(student.studentId);
  }
  const { clients } = await get<{ clients: { id: string; name: string }[] }>('/api/clients?includeInactive=N');
  const { children } = await get<{ children: { id: string; clientId: string }[] }>('/api/clients/all/children');
  const untaught = clients
    .map((client) => ({ client, kids: children.filter((child) => child.clientId === client.id) }))
    .filter(({ kids }) => kids.length > 0 && kids.every((kid) => !taught.has(kid.id)));
  // The family whose lessons the agency sells has two children when one has, so its invoice names both.
  const soldFamily = untaught.find(({ kids }) => kids.length >= 2) ?? untaught[0];
  const introducedFamily = untaught.find((family) => family !== soldFamily);
  if (!soldFamily || !introducedFamily || tutors.length === 0) return null;
  const tutorAt = (index: number) => tutors[index % tutors.length]!;

  await act().run(moneyModel.agencyModelStream(), moneyModel.agencyModelDecider, {
    type: 'ChooseAgencyMoneyModel',
    choice: { model: 'tutor-pays-commission', from, vatRateBp: 2000, payAfterFamilyPays: false },
    today: from,
    actor,
  });
  const engage = async (
    tutor: { id: string; startDate: string },
    studentId: string,
    terms: Terms,
    model: 'agency-sells-tuition' | 'introduction',
  ) => {
    const startDate = [from, tutor.startDate].sort().at(-1)!;
    const { engagement } = await post<{ engagement: { id: string } }>('/api/tutors/engagement', {
      tutorId: tutor.id,
      studentId,
      startDate,
      ...terms,
    });
    await act().run(moneyModel.engagementModelStream(engagement.id), moneyModel.engagementModelDecider, {
      type: 'ChooseEngagementMoneyModel',
      engagementId: engagement.id,
      choice: { model, from },
      today: from,
      actor,
    });
    return engagement.id;
  };
  const sold = { clientId: soldFamily.client.id, family: soldFamily.client.name, engagementIds: [] as string[] };
  const soldTutors: string[] = [];
  for (const [index, kid] of soldFamily.kids.slice(0, 2).entries()) {
    const tutor = tutorAt(index);
    sold.engagementIds.push(await engage(tutor, kid.id, SOLD_TERMS[index]!, 'agency-sells-tuition'));
    soldTutors.push(tutor.id);
  }
  const introducedTutor = tutorAt(2);
  const introducedId = await engage(introducedTutor, introducedFamily.kids[0]!.id, INTRODUCED_TERMS, 'introduction');
  return {
    sold: { ...sold, tutorIds: soldTutors },
    introduced: {
      clientId: introducedFamily.client.id,
      family: introducedFamily.client.name,
      engagementId: introducedId,
      tutorId: introducedTutor.id,
    },
  };
}

/**
 * The second step, after the lessons and before the tutors' commission invoices lock the months:
 * the last three months billed to the families in order, the first paid; one lesson of the middle
 * month made longer after it was billed (an adjustment line on the next invoice and the next pay
 * statement); the tutors' pay statements prepared month by month and confirmed (the last month by
 * the first tutor only, so the last run has someone waiting); bank details for the tutors the
 * agency pays; the middle month's pay run paid and the last month's prepared, with its bank file.
 */
export async function billMoneyModels(
  product: RunningProduct,
  token: string,
  plan: MoneyModelPlan,
  timeZone = 'Europe/London',
): Promise<string> {
  const get = getAs(product, token);
  const post = postAs(product, token);
  const today = todayIn(timeZone, new Date());
  const [oldest, middle, last] = [3, 2, 1].map((back) => monthBefore(today, back)) as [string, string, string];

  // Each answers once its reactor has issued what it asked for, or says it is under way: asking
  // again waits again and issues nothing twice.
  const bill = async (month: string) => {
    while ((await post<{ underWay: boolean }>('/api/family-invoices/lesson-billing', { month })).underWay);
  };
  const prepare = async (month: string) => {
    for (;;) {
      const answer = await post<{ statements: Statement[]; underWay: boolean }>('/api/pay-statements', { month });
      if (!answer.underWay) return answer.statements;
    }
  };
  const confirm = async (statements: Statement[], tutorIds: string[]) => {
    for (const statement of statements.filter((s) => tutorIds.includes(s.tutorId))) {
      await post('/api/pay-statements/confirm', { id: statement.id });
    }
  };

  await bill(oldest);
  await bill(middle);
  await confirm(await prepare(oldest), plan.sold.tutorIds);
  await confirm(await prepare(middle), plan.sold.tutorIds);

  // The family pays its first lessons invoice (the ledger names the kind billed, its lines the month).
  const ledger = await get<{ entries: { kind: string; id: string; billedFor: string }[] }>(
    `/api/family-invoices?client=${plan.sold.clientId}`,
  );
  for (const entry of ledger.entries.filter((e) => e.kind === 'invoice' && e.billedFor === 'lessons')) {
    const invoice = await get<{ month: string; total: number }>(`/api/family-invoices/lines/${entry.id}`);
    if (invoice.month !== oldest) continue;
    await post('/api/family-invoices/payment', { invoiceId: entry.id, date: today, amount: invoice.total.toFixed(2) });
  }

  // The family's first engagement's first lesson of the middle month, half an hour longer.
  const { first: from, last: to } = monthBounds(middle);
  const grid = await get<{
    students: { engagementId: string; lessons: { id?: string; date: string; duration: number }[] }[];
  }>(`/api/lessons/timesheet?${new URLSearchParams({ month: middle, from, to, tutorId: plan.sold.tutorIds[0]! })}`);
  const changed = grid.students
    .find((row) => row.engagementId === plan.sold.engagementIds[0])
    ?.lessons.find((cell) => cell.id);
  if (changed) {
    await post(`/api/lessons/lesson?month=${middle}`, {
      tutorId: plan.sold.tutorIds[0],
      lesson: {
        id: changed.id,
        engagementId: plan.sold.engagementIds[0],
        date: changed.date,
        duration: changed.duration + 0.5,
      },
    });
  }

  await bill(last);
  const lastStatements = await prepare(last);
  await confirm(lastStatements, plan.sold.tutorIds.slice(0, 1));

  const { tutors } = await get<{ tutors: { id: string; name: string }[] }>('/api/tutors?includeInactive=N');
  for (const [index, tutorId] of [...new Set(plan.sold.tutorIds)].entries()) {
    await post(`/api/tutors/bank-details/${tutorId}`, {
      accountName: tutors.find((tutor) => tutor.id === tutorId)?.name ?? 'Tutor',
      sortCode: `20-00-${String(index + 10)}`,
      accountNumber: `5512340${index}`,
    });
  }
  await post('/api/pay-runs', { month: middle });
  await post(`/api/pay-runs/paid/${middle}`, { date: today });
  await post('/api/pay-runs', { month: last });
  return `money models: ${plan.sold.family}'s children's lessons sold by the agency (20 % VAT), ${plan.introduced.family}'s tutor introduced; ${oldest} to ${last} billed${changed ? ' (one lesson changed after billing)' : ''}, pay statements prepared, pay runs for ${middle} (paid) and ${last}`;
}
