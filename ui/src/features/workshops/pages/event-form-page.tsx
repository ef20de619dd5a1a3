import { useNavigate, useParams } from 'react-router-dom';
import { FormActions } from '../../../components/form-actions';
import { FieldRow, FormPanel } from '../../../components/form-layout';
import { LoadState } from '../../../components/load-state';
import { PageHeading } from '../../../components/page-heading';
import { TextField } from '../../../components/text-field';
import { useCommandForm } from '../../../lib/use-command-form';
import { useLoader } from '../../../lib/use-loader';
import { required } from '../../../lib/validation';
import { type EventInput, fetchRegistrations, saveEvent, type WorkshopEvent } from '../api';

const blank: EventInput = {
  description: '',
  dateTime: '',
  durationMinutes: '120',
  price: '',
  capacity: '12',
  location: '',
};

const valuesOf = (event: WorkshopEvent): EventInput => ({
  id: event.id,
  description: event.description,
  dateTime: event.dateTime,
  durationMinutes: String(event.durationMinutes),
  price: String(event.price),
  capacity: String(event.capacity),
  location: event.location,
});

/** Description, date and start time (agency time), duration, price per child, capacity, location. */
function EventForm({ initial }: { initial: EventInput }) {
  const navigate = useNavigate();
  const { form, onSubmit, failure } = useCommandForm<EventInput>({
    defaultValues: initial,
    save: async (values, commandId) => {
      const saved = await saveEvent({ ...values, commandId });
      navigate(`/workshops/${saved.id}`);
    },
  });
  const {
    register,
    formState: { errors, isSubmitting },
  } = form;
  return (
    <FormPanel noValidate onSubmit={onSubmit} aria-label="Workshop event">
      <TextField
        id="description"
        label="Description"
        required
        error={errors.description?.message}
        {...register('description', { validate: required('Description is required') })}
      />
      <FieldRow>
        <TextField
          id="dateTime"
          label="Date and Start Time"
          type="datetime-local"
          required
          error={errors.dateTime?.message}
          {...register('dateTime', { validate: required('Date and time are required') })}
        />
        <TextField
          id="durationMinutes"
          label="Duration (minutes)"
          inputMode="numeric"
          required
          error={errors.durationMinutes?.message}
          {...register('durationMinutes', { validate: required('Duration is required') })}
        />
      </FieldRow>
      <FieldRow>
        <TextField
          id="price"
          label="Price per Child (£)"
          inputMode="decimal"
          required
          error={errors.price?.message}
          {...register('price', { validate: required('Price is required') })}
        />
        <TextField
          id="capacity"
          label="Capacity (children)"
          inputMode="numeric"
          required
          error={errors.capacity?.message}
          {...register('capacity', { validate: required('Capacity is required') })}
        />
      </FieldRow>
      <TextField id="location" label="Location" error={errors.location?.message} {...register('location')} />
      <FormActions
        failure={failure}
        submitting={isSubmitting}
        onCancel={() => navigate(initial.id ? `/workshops/${initial.id}` : '/workshops')}
      />
    </FormPanel>
  );
}

/** workshops/new: a new event. */
export function NewEventPage() {
  return (
    <>
      <PageHeading title="New Workshop Event" />
      <EventForm initial={blank} />
    </>
  );
}

const loadEvent = (eventId: string, signal: AbortSignal) => fetchRegistrations(eventId, signal);

/** workshops/edit/{eventId}: change an event. */
export function EditEventPage() {
  const { eventId = '' } = useParams();
  const { state, retry } = useLoader(loadEvent, eventId);
  return (
    <>
      <PageHeading title="Edit Workshop Event" />
      <LoadState state={state} onRetry={retry}>
        {({ event }) => <EventForm initial={valuesOf(event)} />}
      </LoadState>
    </>
  );
}
