import styled from '@emotion/styled';
import type { ComponentProps } from 'react';
import { controlStyles, errorProps, Field } from './field';

const SelectControl = styled('select', { shouldForwardProp: (prop) => prop !== 'invalid' })<{ invalid?: boolean }>(
  controlStyles,
);

export type Option = { value: string; label: string };

type Props = Omit<ComponentProps<'select'>, 'id'> & { id: string; label: string; options: Option[]; error?: string };

export function Select({ id, label, options, error, required, ...select }: Props) {
  return (
    <Field id={id} label={label} required={required} error={error}>
      <SelectControl id={id} invalid={Boolean(error)} {...errorProps(id, error)} {...select}>
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </SelectControl>
    </Field>
  );
}

/** A select without its own label row, for a control labelled by its neighbour. */
export const BareSelect = SelectControl;
