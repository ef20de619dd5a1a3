import { subjectOptions } from '@agency/contracts/commands/engagement-commands';
import styled from '@emotion/styled';
import type { UseFormRegisterReturn } from 'react-hook-form';
import { Fieldset } from './form-layout';

/** As many columns as fit, never wider than the form: one column on the narrowest phone. */
const Grid = styled.div({
  display: 'grid',
  gridTemplateColumns: 'repeat(auto-fill, minmax(min(9.5rem, 100%), 1fr))',
  gap: '0.25rem 1rem',
  maxWidth: '44rem',
});

const Option = styled.label({ display: 'inline-flex', alignItems: 'center', gap: '0.45rem', minHeight: '2rem' });

/** The spec's subject list as a multi-select: one checkbox per subject, in the spec's order. */
export function SubjectsField({
  registration,
  legend = 'Subjects',
}: {
  registration: UseFormRegisterReturn;
  legend?: string;
}) {
  return (
    <Fieldset>
      <legend>{legend}</legend>
      <Grid>
        {subjectOptions.map((subject) => (
          <Option key={subject}>
            <input type="checkbox" value={subject} {...registration} />
            {subject}
          </Option>
        ))}
      </Grid>
    </Fieldset>
  );
}
