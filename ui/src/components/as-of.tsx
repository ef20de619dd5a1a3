import styled from '@emotion/styled';
import { asOfText, useAsOf } from '../lib/as-of';
import { isOffice, useCurrentUser } from '../lib/current-user';
import { Button } from './button';
import { controlStyles, Label } from './field';

const Bar = styled.div({
  display: 'flex',
  flexWrap: 'wrap',
  alignItems: 'center',
  gap: '0.6rem',
  marginBottom: '1rem',
});
const Input = styled.input(({ theme }) => ({ ...controlStyles({ theme }), width: 'auto' }));
const Banner = styled.div(({ theme }) => ({
  display: 'flex',
  flexWrap: 'wrap',
  alignItems: 'center',
  gap: '0.75rem',
  color: theme.colors.warningText,
  background: theme.colors.warningBackground,
  border: `1px solid ${theme.colors.warningText}`,
  borderRadius: theme.radius,
  padding: '0.6rem 1rem',
  marginBottom: '1rem',
}));

/**
 * The office's "As of" picker (a past moment, agency time, in the address) and, while a past
 * view is on, a banner saying so with a way back to now. Tutors see only the present.
 */
export function AsOfControl({ id }: { /** Prefix of the control's id, unique on the page. */ id: string }) {
  const user = useCurrentUser();
  const { asOf, setAsOf } = useAsOf();
  if (!isOffice(user)) return null;
  return (
    <>
      <Bar>
        <Label htmlFor={`${id}-as-of`}>As of</Label>
        <Input
          id={`${id}-as-of`}
          type="datetime-local"
          step={1}
          value={asOf}
          onChange={(event) => setAsOf(event.target.value)}
          aria-describedby={`${id}-as-of-hint`}
        />
        <span id={`${id}-as-of-hint`}>Leave empty for now.</span>
      </Bar>
      {asOf ? (
        <Banner role="status" data-testid="as-of-banner">
          <span>
            Past view: as it was known on <strong>{asOfText(asOf)}</strong> (agency time), replayed from the events
            recorded up to then. Nothing here can be changed.
          </span>
          <Button type="button" onClick={() => setAsOf('')}>
            Back to now
          </Button>
        </Banner>
      ) : null}
    </>
  );
}
