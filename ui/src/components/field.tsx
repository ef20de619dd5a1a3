import styled from '@emotion/styled';
import type { ReactNode } from 'react';

export const FieldWrap = styled.div({ display: 'flex', flexDirection: 'column', gap: '0.3rem', marginBottom: '1rem' });

export const Label = styled.label(({ theme }) => ({ fontWeight: 600, color: theme.colors.text }));

const LabelRow = styled.div({ display: 'flex', gap: '0.25rem' });

// Outside the label so the accessible name is exactly the label; aria-required says it instead.
const RequiredMark = styled.span(({ theme }) => ({ color: theme.colors.danger, fontWeight: 600 }));

export const FieldError = styled.span(({ theme }) => ({ color: theme.colors.danger, fontSize: '0.9rem' }));

/**
 * A required field keeps a line for its message even while it is valid: a message appearing as
 * the field loses focus must not push the Save button away from a click already on its way.
 */
const ReservedError = styled(FieldError)({ minHeight: '1.35em', marginBottom: '-0.5rem' });

export const controlStyles = ({ theme, invalid }: { theme: import('@emotion/react').Theme; invalid?: boolean }) =>
  ({
    font: 'inherit',
    color: theme.colors.text,
    background: theme.colors.surface,
    border: `1px solid ${invalid ? theme.colors.danger : '#7b8794'}`,
    borderRadius: theme.radius,
    padding: '0.5rem 0.7rem',
    minHeight: '2.5rem',
    width: '100%',
    maxWidth: '28rem',
  }) as const;

/** Label above a control, the error message below it (linked by aria-describedby). */
export function Field({
  id,
  label,
  required,
  error,
  children,
}: {
  id: string;
  label: string;
  required?: boolean;
  error?: string;
  children: ReactNode;
}) {
  return (
    <FieldWrap>
      <LabelRow>
        <Label htmlFor={id}>{label}</Label>
        {required ? <RequiredMark aria-hidden="true">*</RequiredMark> : null}
      </LabelRow>
      {children}
      {required ? (
        <ReservedError id={error ? `${id}-error` : undefined}>{error}</ReservedError>
      ) : error ? (
        <FieldError id={`${id}-error`}>{error}</FieldError>
      ) : null}
    </FieldWrap>
  );
}

export const errorProps = (id: string, error?: string) =>
  error ? { 'aria-invalid': true as const, 'aria-describedby': `${id}-error` } : {};
