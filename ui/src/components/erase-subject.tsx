import styled from '@emotion/styled';
import { type ReactNode, useRef, useState } from 'react';
import { useCommandIds } from '../lib/command-id';
import { errorMessage } from '../lib/http';
import { ErrorAlert } from './alert';
import { Button, ButtonRow } from './button';
import { SectionHeading } from './panel';
import { TextField } from './text-field';

const Dialog = styled.dialog(({ theme }) => ({
  maxWidth: '32rem',
  border: `1px solid ${theme.colors.border}`,
  borderRadius: theme.radius,
  padding: '1.5rem',
  '&::backdrop': { background: 'rgba(0, 0, 0, 0.4)' },
}));

const Note = styled.p({ margin: '0 0 1rem' });

/** What an erasure answers: who was erased, and what accounting keeps until when (families). */
export type Erased = { kept?: { moneyHistory?: string; billingDetailsUntil: string | null } };

type Props = {
  /** "family" or "tutor": the words of the button and the dialog. */
  subject: string;
  /** What is kept and for how long, shown before the admin confirms. */
  kept: ReactNode;
  erase: (request: { reason: string; confirm: true; commandId: string }) => Promise<object>;
  onErased: (answer: Erased) => void;
};

/**
 * An admin's erasure of a data subject's personal data (crypto-shredding): a reason, then a
 * confirmation dialog that says it cannot be undone and what is kept (and until when).
 */
export function EraseSubject({ subject, kept, erase, onErased }: Props) {
  const dialog = useRef<HTMLDialogElement>(null);
  const commandIds = useCommandIds();
  const [reason, setReason] = useState('');
  const [missing, setMissing] = useState(false);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const title = `Erase ${subject[0]?.toUpperCase()}${subject.slice(1)}`;

  const open = () => {
    setMissing(reason.trim() === '');
    if (reason.trim() !== '') dialog.current?.showModal();
  };
  const confirm = async () => {
    setBusy(true);
    setFailure(null);
    const action = reason.trim();
    try {
      const answer = await erase({ reason: action, confirm: true, commandId: commandIds.idFor(action) });
      commandIds.done(action);
      dialog.current?.close();
      onErased(answer as Erased);
    } catch (error) {
      commandIds.done(action, error);
      setFailure(errorMessage(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div>
      <TextField
        id={`erase-${subject}-reason`}
        label="Reason for erasure"
        value={reason}
        maxLength={500}
        error={missing ? 'A reason is required' : undefined}
        onChange={(event) => setReason(event.target.value)}
      />
      <ButtonRow>
        <Button type="button" variant="secondary" onClick={open}>
          {title}
        </Button>
      </ButtonRow>
      <Dialog ref={dialog} aria-labelledby={`erase-${subject}-title`}>
        <SectionHeading id={`erase-${subject}-title`}>{title}?</SectionHeading>
        <Note>
          Every name, address, phone number, e-mail address and date of birth of this {subject} becomes “Erased” for
          good. This cannot be undone.
        </Note>
        <Note>{kept}</Note>
        <Note>Reason: {reason.trim()}</Note>
        {failure ? <ErrorAlert>{failure}</ErrorAlert> : null}
        <ButtonRow>
          <Button type="button" disabled={busy} onClick={confirm}>
            Erase
          </Button>
          <Button type="button" variant="secondary" disabled={busy} onClick={() => dialog.current?.close()}>
            Cancel
          </Button>
        </ButtonRow>
      </Dialog>
    </div>
  );
}
