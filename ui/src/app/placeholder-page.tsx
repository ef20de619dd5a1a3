import styled from '@emotion/styled';
import { PageHeading } from '../components/page-heading';
import { Panel } from '../components/panel';

const Note = styled.p(({ theme }) => ({ color: theme.colors.muted, margin: 0 }));

/** A screen of the route table that is not built yet. */
export function PlaceholderPage({ title }: { title: string }) {
  return (
    <>
      <PageHeading title={title} />
      <Panel aria-label={title}>
        <Note>This screen is coming soon.</Note>
      </Panel>
    </>
  );
}
