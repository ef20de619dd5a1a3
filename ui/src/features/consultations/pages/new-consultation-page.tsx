import { useNavigate } from 'react-router-dom';
import { PageHeading } from '../../../components/page-heading';
import { saveConsultation } from '../api';
import { ConsultationForm, plainAmount } from '../components/consultation-form';

/** consultations/new: a save counts only when the answer holds the consultation's id (spec §4). */
export function NewConsultationPage() {
  const navigate = useNavigate();
  return (
    <>
      <PageHeading title="New Consultation" />
      <ConsultationForm
        onSave={async (values, commandId) => {
          const saved = await saveConsultation({
            commandId,
            client: values.client,
            child: values.child,
            date: values.date,
            amount: plainAmount(values.amount),
            assessment: values.assessment,
            ...(values.assessment
              ? { assessmentDetails: { subjects: values.subjects || [], tutorId: values.tutorId } }
              : {}),
          });
          if (!saved?.id) throw new Error('The consultation was not saved: the answer held no id. Please try again.');
          navigate('/consultations');
          return saved;
        }}
        onCancel={() => navigate('/consultations')}
      />
    </>
  );
}
