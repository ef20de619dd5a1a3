import { randomUUID } from 'node:crypto';
import { subjectOptions } from '@agency/contracts';
import { todayIn } from '@agency/domain';
import type { RunningProduct } from '../product';
import { getAs, inParallel } from './demo-requests';

const RATES = [28, 30, 32.5, 35, 40, 45, 50];
const COMMISSIONS = [20, 25, 25, 30];
const STUDENTS_PER_TUTOR = 5;

/** The first day of the month `back` months before `today`'s month. */
function monthStart(today: string, back: number): string {
  const date = new Date(`${today.slice(0, 7)}-01T00:00:00Z`);
  date.setUTCMonth(date.getUTCMonth() - back);
  return date.toISOString().slice(0, 10);
}

/** The last day of the month `back` months before `today`'s month. */
function monthEnd(today: string, back: number): string {
  const date = new Date(`${monthStart(today, back - 1)}T00:00:00Z`);
  date.setUTCDate(0);
  return date.toISOString().slice(0, 10);
}

/**
 * Every active tutor gets a few of the demo children (of active families) as students through
 * the real engagement route: started months ago, some with a rate change last month (so
 * recent lessons are priced by two periods), some with new subjects, and a few already ended.
 * Run after the tutors and before the lessons.
 */
export async function seedEngagements(product: RunningProduct, token: string, timeZone = 'Europe/London') {
  const { app } = product.command;
  const headers = { authorization: `Bearer ${token}` };
  const get = getAs(product, token);
  const post = async (payload: Record<string, unknown>) => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/tutors/engagement',
      headers,
      payload: { commandId: randomUUID(), ...payload },
    });
    if (response.statusCode !== 200) throw new Error(`An engagement answered ${response.statusCode}: ${response.body}`);
    return response.json().engagement as { id: string };
  };

  const today = todayIn(timeZone, new Date());
  const { tutors } = await get<{ tutors: { id: string; startDate: string }[] }>('/api/tutors?includeInactive=N');
  const { clients } = await get<{ clients: { id: string }[] }>('/api/clients?includeInactive=N');
  const active = new Set(clients.map((client) => client.id));
  const { children } = await get<{ children: { id: string; clientId: string }[] }>('/api/clients/all/children');
  const students = children.filter((child) => active.has(child.clientId));

  let started = 0;
  let changed = 0;
  let ended = 0;
  // Round the tutors so each gets students even when there are few children.
  const count = tutors.length === 0 ? 0 : Math.min(students.length, tutors.length * STUDENTS_PER_TUTOR);
  // Each student's engagement and its changes in order; the students a few at a time.
  await inParallel(
    Array.from({ length: count }, (_, n) => n),
    async (n) => {
      const tutor = tutors[n % tutors.length]!;
      const student = students[n]!;
      const monthsAgo = 4 + ((n * 5) % 15);
      const startDate = [monthStart(today, monthsAgo), tutor.startDate].sort().at(-1)!;
      const terms = {
        tutorId: tutor.id,
        rate: RATES[n % RATES.length],
        commissionPct: COMMISSIONS[n % COMMISSIONS.length],
        // The partner's share is given on some engagements only.
        partnerPct: n % 3 === 0 ? 10 : 0,
        subjects: [subjectOptions[1 + ((n * 7) % (subjectOptions.length - 1))]],
      };
      const engagement = await post({ ...terms, studentId: student.id, startDate });
      started++;
      const endDate = monthEnd(today, 2);
      if (n % 7 === 6 && endDate > startDate) {
        await post({ ...terms, id: engagement.id, change: 'termination', startDate, endDate });
        ended++;
        return;
      }
      let history = false;
      const subjectsFrom = monthStart(today, 3);
      if (n % 4 === 2 && subjectsFrom > startDate) {
        const subjects = [...terms.subjects, subjectOptions[1 + ((n * 11) % (subjectOptions.length - 1))]];
        await post({ ...terms, id: engagement.id, change: 'subjects', startDate: subjectsFrom, subjects });
        terms.subjects = subjects;
        history = true;
      }
      const ratesFrom = monthStart(today, 1);
      if (n % 3 === 1 && ratesFrom > startDate) {
        await post({ ...terms, id: engagement.id, change: 'rates', rate: terms.rate + 5, startDate: ratesFrom });
        history = true;
      }
      if (history) changed++;
    },
  );
  return `${started} engagements (${changed} with history, ${ended} ended)`;
}
