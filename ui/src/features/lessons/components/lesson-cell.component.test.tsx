import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { type Answer, fakeServer, renderScreen, type SentRequest } from '../../../testing/component';
import type { GridCell, Timesheet } from '../api';
import { AddLessonsPage } from '../pages/add-lessons-page';

// June 2026 begins on a Monday: the grid's first week is 1–7 June, all in the month.
const WEEK = ['2026-06-01', '2026-06-02', '2026-06-03', '2026-06-04', '2026-06-05', '2026-06-06', '2026-06-07'];
const RATE = 30;
const free = (date: string): GridCell => ({
  date,
  duration: 0,
  amount: 0,
  amountEdited: false,
  locked: false,
  open: true,
  rate: RATE,
});

/** The week of one student, Ada Byron, with a one-hour lesson on Tuesday. */
function week(cells: Record<string, Partial<GridCell>> = {}, locked = false): Timesheet {
  const lessons = WEEK.map((date) => ({ ...free(date), locked, ...cells[date] }));
  return {
    dates: WEEK,
    locked,
    students: [
      {
        engagementId: 'eng-1',
        studentId: 'student-1',
        studentName: 'Ada Byron',
        rate: RATE,
        startDate: '2026-01-01',
        endDate: null,
        lessons,
      },
    ],
  };
}
const TUESDAY_LESSON = { '2026-06-02': { id: 'lesson-2', duration: 1, amount: RATE } };

/** The server of this week: a save answers the week with the lesson priced at the rate. */
function lessonServer(refuse?: Answer, locked = false) {
  const saved: Record<string, Partial<GridCell>> = { ...TUESDAY_LESSON };
  return fakeServer((request: SentRequest) => {
    if (request.method === 'GET') return { body: { ...week(saved, locked), month: '2026-06', tutorId: 'tutor-1' } };
    if (refuse) return refuse;
    const { lesson } = request.body as { lesson: { date: string; duration: string } };
    const hours = Number(lesson.duration.replace(/^(\d+):(\d\d)$/, (_, h, m) => String(Number(h) + Number(m) / 60)));
    saved[lesson.date] = { id: `lesson-${lesson.date}`, duration: hours, amount: hours * RATE };
    return { body: { ...week(saved), lesson: { id: `lesson-${lesson.date}` } } };
  });
}

const admin = { id: 'u1', username: 'admin', role: 'admin' as const, agencyTimeZone: 'Europe/London' };
const drawGrid = () =>
  renderScreen(<AddLessonsPage />, {
    path: '/lessons/add/:tutorId',
    at: '/lessons/add/tutor-1?month=2026-06',
    user: admin,
  });

const MONDAY = 'Ada Byron on Mon 01 Jun 2026';
const TUESDAY = 'Ada Byron on Tue 02 Jun 2026';
const durationInput = (day: string) => screen.getByRole('textbox', { name: `Duration for ${day}` });

describe('a timesheet cell', () => {
  it('sends a duration typed as hours and minutes, shows the saved lesson and goes on to the next day', async () => {
    const server = lessonServer();
    const { user } = drawGrid();
    await user.click(await screen.findByRole('button', { name: `Add a lesson for ${MONDAY}` }));
    // A new lesson starts as one hour, selected so that typing replaces it.
    expect(durationInput(MONDAY)).toHaveProperty('value', '1');
    await user.keyboard('1:30{Enter}');
    expect(await screen.findByRole('button', { name: `Duration for ${MONDAY}: 1.5 h. Edit` })).toBeDefined();
    expect(screen.getByRole('button', { name: `Amount for ${MONDAY}: 45.00. Edit` })).toBeDefined();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: `Duration for ${TUESDAY}: 1 h. Edit` }));
    const [sent, ...more] = server.posts();
    expect(more).toEqual([]);
    expect(sent?.path).toBe('/api/lessons/lesson?from=2026-06-01&to=2026-06-07&month=2026-06&tutorId=tutor-1');
    expect(sent?.body).toEqual({
      commandId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      tutorId: 'tutor-1',
      lesson: { date: '2026-06-01', duration: '1:30', engagementId: 'eng-1' },
    });
  });

  it('changes an existing lesson by its id when a digit is typed on it', async () => {
    const server = lessonServer();
    const { user } = drawGrid();
    (await screen.findByRole('button', { name: `Duration for ${TUESDAY}: 1 h. Edit` })).focus();
    await user.keyboard('2{Tab}');
    expect(await screen.findByRole('button', { name: `Duration for ${TUESDAY}: 2 h. Edit` })).toBeDefined();
    expect(server.posts().map((request) => (request.body as { lesson: unknown }).lesson)).toEqual([
      { id: 'lesson-2', date: '2026-06-02', duration: '2', engagementId: 'eng-1' },
    ]);
  });

  it.each([
    ['abc', 'Duration must be hours (1.5 or 1:30) or minutes (90m)'],
    ['30', 'Duration cannot be more than 24 hours: for 30 minutes, write 30m'],
    ['-1', 'Duration cannot be negative'],
  ])('keeps "%s", which it cannot read, in the cell with the reason and sends nothing', async (typed, reason) => {
    const server = lessonServer();
    const { user } = drawGrid();
    await user.click(await screen.findByRole('button', { name: `Add a lesson for ${MONDAY}` }));
    await user.keyboard(`${typed}{Enter}`);
    const input = durationInput(MONDAY);
    expect(input).toHaveProperty('value', typed);
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByRole('alert').textContent).toBe(reason);
    // The reason is what a screen reader says of the input, with the forms a duration may take.
    const described = (input.getAttribute('aria-describedby') ?? '').split(' ');
    expect(described.map((id) => document.getElementById(id)?.textContent)).toEqual([
      reason,
      'Durations: hours as 1.5 or 1:30, minutes as 90m; a number alone is hours (24 at most).',
    ]);
    expect(server.posts()).toEqual([]);
  });

  it('sends nothing when Escape cancels or the value is unchanged', async () => {
    const server = lessonServer();
    const { user } = drawGrid();
    await user.click(await screen.findByRole('button', { name: `Add a lesson for ${MONDAY}` }));
    await user.keyboard('2{Escape}');
    expect(screen.getByRole('button', { name: `Add a lesson for ${MONDAY}` })).toBe(document.activeElement);
    await user.click(screen.getByRole('button', { name: `Duration for ${TUESDAY}: 1 h. Edit` }));
    await user.keyboard('1:00{Enter}');
    expect(screen.queryByRole('textbox')).toBeNull();
    expect(server.posts()).toEqual([]);
  });

  it("shows the server's refusal beside the value, which stays to be corrected", async () => {
    const server = lessonServer({
      status: 400,
      body: { error: { code: 'validation', message: 'The engagement has ended on this date' } },
    });
    const { user } = drawGrid();
    await user.click(await screen.findByRole('button', { name: `Add a lesson for ${MONDAY}` }));
    await user.keyboard('2{Enter}');
    expect((await screen.findByRole('alert')).textContent).toBe('The engagement has ended on this date');
    expect(durationInput(MONDAY)).toHaveProperty('value', '2');
    expect(server.posts()).toHaveLength(1);
  });

  it('offers nothing to edit in an invoiced month', async () => {
    const server = lessonServer(undefined, true);
    drawGrid();
    expect(await screen.findByText('This month has been invoiced: its lessons are locked.')).toBeDefined();
    const grid = screen.getByRole('table');
    expect(within(grid).queryAllByRole('button')).toEqual([]);
    expect(within(grid).getAllByText('1 h')).toHaveLength(1);
    expect(server.posts()).toEqual([]);
  });
});
