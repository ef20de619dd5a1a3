import { useLocation, useNavigate } from 'react-router-dom';
import { Button, ButtonLink, ButtonRow } from '../components/button';
import { PageHeading } from '../components/page-heading';
import { Panel } from '../components/panel';

/** Any path the route table does not name: says so, with a way back. */
export function NotFoundPage() {
  const { pathname } = useLocation();
  const navigate = useNavigate();
  return (
    <>
      <PageHeading title="Page not found" />
      <Panel aria-label="Page not found">
        <p style={{ marginTop: 0 }}>
          There is no page at <code>{pathname}</code>. The link may be mistyped, or the page may have moved.
        </p>
        <ButtonRow>
          <ButtonLink to="/dashboard">Go to the dashboard</ButtonLink>
          <Button type="button" variant="secondary" onClick={() => navigate(-1)}>
            Go back
          </Button>
        </ButtonRow>
      </Panel>
    </>
  );
}
