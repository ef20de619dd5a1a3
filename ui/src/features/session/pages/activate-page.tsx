import styled from '@emotion/styled';
import { useEffect } from 'react';
import { Link } from 'react-router-dom';
import { CentredPanel } from '../components/centred-panel';

const Note = styled.p(({ theme }) => ({ color: theme.colors.muted }));

export function ActivatePage() {
  useEffect(() => {
    document.title = 'Activation · Tutoring Agency';
  }, []);
  return (
    <CentredPanel title="Activation">
      <Note>Account activation is coming soon.</Note>
      <Link to="/login">Back to login</Link>
    </CentredPanel>
  );
}
