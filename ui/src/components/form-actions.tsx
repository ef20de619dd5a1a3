import { ErrorAlert } from './alert';
import { Button, ButtonRow } from './button';

/** The foot of every form: the server's refusal, if any, then the submit button and Cancel. */
export function FormActions({
  failure,
  submitting,
  submitLabel = 'Save',
  onCancel,
}: {
  failure: string | null;
  submitting: boolean;
  submitLabel?: string;
  onCancel: () => void;
}) {
  return (
    <>
      {failure ? <ErrorAlert>{failure}</ErrorAlert> : null}
      <ButtonRow>
        <Button type="submit" disabled={submitting}>
          {submitting ? 'Saving…' : submitLabel}
        </Button>
        <Button type="button" variant="secondary" onClick={onCancel}>
          Cancel
        </Button>
      </ButtonRow>
    </>
  );
}
