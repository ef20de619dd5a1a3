import { useNavigate } from 'react-router-dom';
import { PageHeading } from '../../../components/page-heading';
import { useAgencyToday } from '../../../lib/current-user';
import { createTutor, suggestNames } from '../api';
import { blankTutorForm, TutorForm } from '../components/tutor-form';

/** tutor/new. */
export function NewTutorPage() {
  const navigate = useNavigate();
  const today = useAgencyToday();
  return (
    <>
      <PageHeading title="New Tutor" />
      <TutorForm
        initial={blankTutorForm(today)}
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
