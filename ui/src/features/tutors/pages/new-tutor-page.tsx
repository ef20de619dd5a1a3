import { todayIn } from '@agency/domain/shared/calendar';
import { useNavigate } from 'react-router-dom';
import { PageHeading } from '../../../components/page-heading';
import { createTutor, suggestNames } from '../api';
import { blankTutorForm, TutorForm } from '../components/tutor-form';

export const AGENCY_TIME_ZONE = 'Europe/London';

/** tutor/new. */
export function NewTutorPage() {
  const navigate = useNavigate();
  return (
    <>
      <PageHeading title="New Tutor" />
      <TutorForm
        initial={blankTutorForm(todayIn(AGENCY_TIME_ZONE, new Date()))}
        onSuggest={suggestNames}
        onSave={async (tutor, commandId) => {
          const answer = await createTutor({ ...tutor, commandId });
          navigate(`/tutor/${answer.tutor.id}`);
        }}
        onCancel={() => navigate('/tutors')}
      />
    </>
  );
}
