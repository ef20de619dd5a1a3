import styled from '@emotion/styled';
import { ErrorAlert } from './alert';
import { Button, ButtonRow } from './button';

const Saved = styled.p(({ theme }) => ({ margin: '1rem 0 0', fontWeight: 600, color: theme.colors.text }));

/**
 * The foot of every form: the server's refusal, if any, then the submit button and Cancel; on a
 * page that stays after its save, `saved` says so ("Saved") until the values change.
 */
export function FormActions({
  failure,
  submitting,
  submitLabel = 'Save',
  saved,
  onCancel,
}: {
  failure: string | null;
  submitting: boolean;
  submitLabel?: string;
  /** Given by a form whose page stays after its save: its status line is there from the start, so the word is announced. */
  saved?: boolean;
  onCancel: () => void;
}) {
  return (
    <>
      {failure ? <ErrorAlert>{failure}</ErrorAlert> : null}
      {saved === undefined ? null : <div role="status">{saved && !failure ? <Saved>Saved</Saved> : null}</div>}
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
