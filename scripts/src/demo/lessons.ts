import { randomUUID } from 'node:crypto';
import { todayIn } from '@agency/domain';
import { addDays, mondayOf, monthBounds, weekInMonth } from '@agency/domain/timesheet/week';
import type { RunningProduct } from '../product';
import { getAs, inParallel } from './demo-requests';

type Cell = { date: string; id?: string; open: boolean; locked: boolean };
type Week = { students: { engagementId: string; lessons: Cell[] }[] };

const DURATIONS = ['1', '1', '1.5', '1', '2', '1', '0.75'];

/** A stable small number from an id, so each student keeps a lesson day. */
const hashOf = (text: string) => [...text].reduce((sum, char) => (sum * 31 + char.charCodeAt(0)) % 9973, 7);

/**
 * A weekly lesson for every current student of every active tutor over the last three months
 * and this month up to today, typed into the same grid the tutors use (GET the week, POST
 * each cell). Engagements must already exist; with none there is nothing to record.
 */
export async function seedLessons(product: RunningProduct, token: string, timeZone = 'Europe/London') {
  const { app } = product.command;
  const headers = { authorization: `Bearer ${token}` };
  const get = getAs(product, token);
  const today = todayIn(timeZone, new Date());
  const months = [3, 2, 1, 0].map((back) => {
    const date = new Date(`${today.slice(0, 7)}-01T00:00:00Z`);
    date.setUTCMonth(date.getUTCMonth() - back);
    return date.toISOString().slice(0, 7);
  });
  const { tutors } = await get<{ tutors: { id: string }[] }>('/api/tutors?includeInactive=N');
  let lessons = 0;
  // A tutor's weeks in order, as the tutor would type them; the tutors a few at a time.
  await inParallel(tutors, async (tutor) => {
    for (const month of months) {
      const { first, last } = monthBounds(month);
      for (let monday = mondayOf(first); monday <= last && monday <= today; monday = addDays(monday, 7)) {
        const week = weekInMonth(monday < first ? first : monday, month);
        const query = new URLSearchParams({ from: week.from, to: week.to, month, tutorId: tutor.id });
        const grid = await get<Week>(`/api/lessons/timesheet?${query}`);
        for (const row of grid.students) {
          const hash = hashOf(row.engagementId);
          const day = addDays(monday, hash % 5);
          const cell = row.lessons.find((c) => c.date === day);
          if (!cell?.open || cell.locked || cell.id || day > today) continue;
          const weekNumber = Math.round((Date.parse(monday) - Date.parse('2024-01-01')) / (7 * 86_400_000));
          // Now and then a student misses a week.
          if ((hash + weekNumber) % 7 === 3) continue;
          const response = await app.inject({
            method: 'POST',
            url: `/api/lessons/lesson?${query}`,
            headers,
            payload: {
              commandId: randomUUID(),
              tutorId: tutor.id,
              lesson: {
                engagementId: row.engagementId,
                date: day,
                duration: DURATIONS[(hash + weekNumber) % DURATIONS.length],
              },
            },
          });
          if (response.statusCode !== 200) {
            throw new Error(`Lesson on ${day} answered ${response.statusCode}: ${response.body}`);
          }
          lessons++;
        }
      }
    }
  });
  return `${lessons} lessons over ${months[0]} to ${months.at(-1)}`;
}
