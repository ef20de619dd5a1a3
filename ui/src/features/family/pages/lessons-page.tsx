import { useState } from 'react';
import { Button, ButtonRow } from '../../../components/button';
import { LoadState } from '../../../components/load-state';
import { Panel } from '../../../components/panel';
import { formatDate } from '../../../lib/format';
import { useLoader } from '../../../lib/use-loader';
import { fetchLessons } from '../api';
import { FamilyFrame } from '../components/family-frame';

const hours = (duration: number) => `${duration} ${duration === 1 ? 'hour' : 'hours'}`;

/** /family/lessons: the lessons delivered to the family's children, a year at a time: date, child, tutor, length. */
export function FamilyLessonsPage() {
  const [year, setYear] = useState(() => new Date().getFullYear());
  const { state, retry } = useLoader(fetchLessons, year);
  return (
    <FamilyFrame title={`Lessons in ${year}`}>
      <ButtonRow>
        <Button type="button" variant="secondary" onClick={() => setYear(year - 1)}>
          {year - 1}
        </Button>
        <Button type="button" variant="secondary" onClick={() => setYear(year + 1)}>
          {year + 1}
        </Button>
      </ButtonRow>
      <LoadState state={state} onRetry={retry}>
        {({ lessons }) =>
          lessons.length === 0 ? (
            <p>No lessons in {year}.</p>
          ) : (
            lessons.map((lesson) => (
              <Panel key={lesson.id} aria-label={`Lesson on ${formatDate(lesson.date)}`}>
                <strong>{formatDate(lesson.date)}</strong>
                <p>
                  {lesson.child} with {lesson.tutor}, {hours(lesson.duration)}
                </p>
              </Panel>
            ))
          )
        }
      </LoadState>
    </FamilyFrame>
  );
}
