import { useNavigate, useParams } from 'react-router-dom';
import { LoadState } from '../../../components/load-state';
import { PageHeading } from '../../../components/page-heading';
import { toContactFields } from '../../../lib/contact-form-values';
import { useLoader } from '../../../lib/use-loader';
import { fetchTutor, saveTutorContact } from '../api';
import { TutorForm } from '../components/tutor-form';

const loadTutor = (id: string, signal: AbortSignal) => fetchTutor(id, signal);

/** tutor/edit/{tutorId}: a tutor's Edit Contact, with the tutor form's own rules and no date of birth. */
export function EditTutorPage() {
  const tutorId = useParams().tutorId ?? '';
  const navigate = useNavigate();
  const { state, retry } = useLoader(loadTutor, tutorId);
  const back = `/tutor/${encodeURIComponent(tutorId)}`;
  return (
    <>
      <PageHeading title="Edit Contact" />
      <LoadState state={state} onRetry={retry}>
        {(tutor) => (
          <TutorForm
            initial={{
              ...toContactFields(tutor.contact),
              username: tutor.username,
              invoicePrefix: tutor.invoicePrefix,
              startDate: tutor.startDate,
            }}
            onSave={async ({ contact, tutor: names }, commandId) => {
              await saveTutorContact({ contact, tutor: { ...names, id: tutorId }, commandId });
              navigate(back);
            }}
            onCancel={() => navigate(back)}
          />
        )}
      </LoadState>
    </>
  );
}
