import styled from '@emotion/styled';

export const Facts = styled.dl({
  display: 'grid',
  gridTemplateColumns: 'max-content 1fr',
  gap: '0.4rem 1.25rem',
  margin: 0,
  '& dt': { fontWeight: 600 },
  '& dd': { margin: 0 },
});

/** Whose engagement a form changes: tutor and student names. */
export function EngagementNames({ tutorName, studentName }: { tutorName: string; studentName: string }) {
  return (
    <Facts>
      <dt>Tutor</dt>
      <dd>{tutorName}</dd>
      <dt>Student</dt>
      <dd>{studentName}</dd>
    </Facts>
  );
}
