import styled from '@emotion/styled';

const Banner = styled.div(({ theme }) => ({
  position: 'fixed',
  top: '1rem',
  left: '50%',
  transform: 'translateX(-50%)',
  zIndex: 50,
  padding: '0.75rem 1.25rem',
  borderRadius: theme.radius,
  border: `1px solid ${theme.colors.warningText}`,
  background: theme.colors.warningBackground,
  color: theme.colors.warningText,
  fontWeight: 600,
  boxShadow: '0 4px 16px rgba(0,0,0,0.15)',
}));

export function SessionWarning() {
  return (
    <Banner role="alert">Your session is about to expire. Move the mouse or press a key to stay signed in.</Banner>
  );
}
