import { useNavigate, useParams } from 'react-router-dom';
import { DateField } from '../../../components/date-field';
import { FormActions } from '../../../components/form-actions';
import { LoadState } from '../../../components/load-state';
import { PageHeading } from '../../../components/page-heading';
import { Panel } from '../../../components/panel';
import { useAgencyToday } from '../../../lib/current-user';
import { useCommandForm } from '../../../lib/use-command-form';
import { useLoader } from '../../../lib/use-loader';
import { fetchTutor, setTutorActive, type Tutor } from '../api';
import { ContactSummary } from '../components/contact-summary';

const loadTutor = (id: string, signal: AbortSignal) => fetchTutor(id, signal);

function DateForm({
  tutor,
  field,
  label,
  action,
}: {
  tutor: Tutor;
  field: 'endDate' | 'startDate';
  label: string;
  action: string;
}) {
  const navigate = useNavigate();
  const today = useAgencyToday();
  const { form, onSubmit, failure } = useCommandForm<{ date: string }>({
    defaultValues: { date: today },
    save: async ({ date }, commandId) => {
      await setTutorActive(tutor.id, { active: field === 'startDate', [field]: date, commandId });
      navigate(`/tutor/${tutor.id}`);
    },
    // The server names the date by its meaning (endDate / startDate); the form has one date.
    fieldName: (serverField) => (serverField === field ? 'date' : undefined),
  });
  const {
    register,
    formState: { errors, isSubmitting },
  } = form;

  return (
    <form noValidate onSubmit={onSubmit}>
      <DateField
        id={field}
        label={label}
        required
        error={errors.date?.message}
        {...register('date', { validate: (value) => value !== '' || `${label} is required` })}
      />
      <FormActions
        failure={failure}
        submitting={isSubmitting}
        submitLabel={action}
        onCancel={() => navigate(`/tutor/${tutor.id}`)}
      />
    </form>
  );
}

/** tutor/terminate/{tutorId}: contact summary, start date, End Date (default today). */
export function TerminateTutorPage() {
  const { tutorId = '' } = useParams();
  const { state, retry } = useLoader(loadTutor, tutorId);
  return (
    <>
      <PageHeading title="Terminate Tutor" />
      <LoadState state={state} onRetry={retry}>
        {(tutor) => (
          <Panel aria-label="Terminate tutor">
            <ContactSummary tutor={tutor} />
            <DateForm tutor={tutor} field="endDate" label="End Date" action="Terminate Tutor" />
          </Panel>
        )}
      </LoadState>
    </>
  );
}

/** tutor/reactivate/{tutorId}: contact summary, username, invoice prefix, Start Date (default today). */
export function ReactivateTutorPage() {
  const { tutorId = '' } = useParams();
  const { state, retry } = useLoader(loadTutor, tutorId);
  return (
    <>
      <PageHeading title="Reactivate Tutor" />
      <LoadState state={state} onRetry={retry}>
        {(tutor) => (
          <Panel aria-label="Reactivate tutor">
            <ContactSummary tutor={tutor}>
              <dt>Username</dt>
              <dd>{tutor.username}</dd>
              <dt>Invoice Prefix</dt>
              <dd>{tutor.invoicePrefix}</dd>
            </ContactSummary>
            <DateForm tutor={tutor} field="startDate" label="Start Date" action="Reactivate Tutor" />
          </Panel>
        )}
      </LoadState>
    </>
  );
}
