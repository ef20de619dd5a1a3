import type { ComponentProps } from 'react';
import { TextField } from './text-field';

type Props = Omit<ComponentProps<typeof TextField>, 'type'>;

/** A date picker whose value is YYYY-MM-DD. */
export function DateField(props: Props) {
  return <TextField type="date" {...props} />;
}
