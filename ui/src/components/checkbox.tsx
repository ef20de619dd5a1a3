import styled from '@emotion/styled';
import type { ComponentProps } from 'react';

const Wrap = styled.div({ display: 'inline-flex', alignItems: 'center', gap: '0.5rem', minHeight: '2.5rem' });

const Box = styled.input(({ theme }) => ({ width: '1.15rem', height: '1.15rem', accentColor: theme.colors.primary }));

type Props = Omit<ComponentProps<'input'>, 'id' | 'type'> & { id: string; label: string };

export function Checkbox({ id, label, ...input }: Props) {
  return (
    <Wrap>
      <Box id={id} type="checkbox" {...input} />
      <label htmlFor={id}>{label}</label>
    </Wrap>
  );
}
