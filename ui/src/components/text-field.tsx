import styled from '@emotion/styled';
import type { ComponentProps } from 'react';
import { controlStyles, errorProps, Field } from './field';

const Input = styled('input', { shouldForwardProp: (prop) => prop !== 'invalid' })<{ invalid?: boolean }>(
  controlStyles,
);

type Props = Omit<ComponentProps<'input'>, 'id'> & { id: string; label: string; error?: string };

export function TextField({ id, label, error, required, ...input }: Props) {
  return (
    <Field id={id} label={label} required={required} error={error}>
      <Input
        id={id}
        type="text"
        invalid={Boolean(error)}
        aria-required={required || undefined}
        {...errorProps(id, error)}
        {...input}
      />
    </Field>
  );
}
