import type { RepricedLessons } from '@agency/contracts';
import styled from '@emotion/styled';
import { formatDate, formatMoney } from '../../../lib/format';

const Box = styled.div(({ theme }) => ({
  background: theme.colors.surface,
  border: `1px solid ${theme.colors.primary}`,
  borderRadius: theme.radius,
  padding: '0.75rem 1rem',
  margin: '0 0 1.5rem',
  '& p': { margin: 0 },
  '& ul': { margin: '0.5rem 0 0', paddingLeft: '1.25rem' },
}));

const lessons = (count: number) => (count === 1 ? '1 lesson' : `${count} lessons`);
const hours = (duration: number) => (duration === 1 ? '1 hour' : `${duration} hours`);

/** The sentence before the list: what was repriced, or that the repricing is still under way. */
export function repricedLead({ from, complete, lessons: repriced }: RepricedLessons): string {
  const since = formatDate(from);
  if (complete) {
    return repriced.length
      ? `Repriced ${lessons(repriced.length)} from ${since}:`
      : `No lesson from ${since} needed repricing.`;
  }
  const sofar = repriced.length ? ` ${lessons(repriced.length)} so far:` : ' Reload this page in a moment to see them.';
  return `The lessons from ${since} are still being repriced.${sofar}`;
}

/**
 * Shown on the engagement after a change of its rates was saved: the lessons it repriced in the
 * months not yet invoiced, each with its old and new amount (the answer's `repriced`).
 */
export function RepricedNotice({ repriced }: { repriced: RepricedLessons }) {
  return (
    <Box role="status" data-testid="repriced">
      <p>{repricedLead(repriced)}</p>
      {repriced.lessons.length ? (
        <ul>
          {repriced.lessons.map((lesson) => (
            <li key={lesson.id}>
              {formatDate(lesson.date)} ({hours(lesson.duration)}): £{formatMoney(lesson.previousAmount)} → £
              {formatMoney(lesson.amount)}
            </li>
          ))}
        </ul>
      ) : null}
    </Box>
  );
}
