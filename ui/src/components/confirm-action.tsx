import styled from '@emotion/styled';
import { type ReactNode, useId, useRef } from 'react';
import { Button, ButtonRow } from './button';
import { SectionHeading } from './panel';

const Dialog = styled.dialog(({ theme }) => ({
  maxWidth: 'min(32rem, calc(100vw - 2rem))',
  border: `1px solid ${theme.colors.border}`,
  borderRadius: theme.radius,
  padding: '1.5rem',
  color: theme.colors.text,
  '&::backdrop': { background: 'rgba(0, 0, 0, 0.4)' },
  '& p': { margin: '0 0 0.75rem' },
}));

/** The step that does it: red, so it does not read as the safe way out. */
const DangerButton = styled(Button)(({ theme }) => ({
  background: theme.colors.danger,
  borderColor: theme.colors.danger,
  '&:hover:not(:disabled)': { background: theme.colors.danger, filter: 'brightness(0.88)' },
}));

type Props = {
  /** The button that asks first: "Delete", "Withdraw", "Cancel Event", a move's destination. */
  label: ReactNode;
  /** The question: "Delete this registration?" */
  title: string;
  /** What will happen, in plain words: what is lost, who is told, what is credited. */
  children: ReactNode;
  /** The button that does it ("Delete"). */
  confirmLabel: string;
  /** The button that changes nothing. */
  keepLabel?: string;
  onConfirm: () => void;
  disabled?: boolean;
  variant?: 'primary' | 'secondary';
};

/**
 * A destructive action asked for in two steps: its button opens a modal confirmation (the
 * browser's own `<dialog>`: focus kept inside, Escape keeps things as they are) that says what will
 * happen, with the action and Keep, which has the focus. Nothing is sent before the action is
 * confirmed; focus goes back to the button when the dialog closes.
 */
export function ConfirmAction({
  label,
  title,
  children,
  confirmLabel,
  keepLabel = 'Keep',
  onConfirm,
  disabled,
  variant = 'secondary',
}: Props) {
  const dialog = useRef<HTMLDialogElement>(null);
  const trigger = useRef<HTMLButtonElement>(null);
  const keep = useRef<HTMLButtonElement>(null);
  const id = useId();
  const open = () => {
    dialog.current?.showModal();
    keep.current?.focus();
  };
  const confirm = () => {
    dialog.current?.close();
    onConfirm();
  };
  return (
    <>
      <Button ref={trigger} type="button" variant={variant} disabled={disabled} onClick={open}>
        {label}
      </Button>
      <Dialog
        ref={dialog}
        role="alertdialog"
        aria-labelledby={`${id}-title`}
        aria-describedby={`${id}-what`}
        onClose={() => trigger.current?.focus()}
      >
        <SectionHeading id={`${id}-title`}>{title}</SectionHeading>
        <div id={`${id}-what`}>{children}</div>
        <ButtonRow>
          <DangerButton type="button" onClick={confirm}>
            {confirmLabel}
          </DangerButton>
          <Button ref={keep} type="button" variant="secondary" onClick={() => dialog.current?.close()}>
            {keepLabel}
          </Button>
        </ButtonRow>
      </Dialog>
    </>
  );
}
