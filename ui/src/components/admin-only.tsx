import { managesAgency } from '@agency/contracts/role-rules';
import type { ReactNode } from 'react';
import { Link, Outlet, useMatches } from 'react-router-dom';
import { useCurrentUser } from '../lib/current-user';
import { ErrorAlert } from './alert';
import { PageHeading } from './page-heading';

/** What a guarded route may say to someone who may not use it (its `handle`), instead of the general refusal. */
export type AdminOnlyHandle = { refusal?: string };

const REFUSAL = 'Only an admin can change this. Your role reads it and changes nothing.';

/**
 * The one guard of the screens that change the agency's records (`managesAgency`): an admin gets
 * the screen; anyone else, whether by a link or by typing its address, gets a refusal and no form
 * (the server refuses them as well).
 */
export function AdminOnly({ children, refusal = REFUSAL }: { children: ReactNode; refusal?: string }) {
  const user = useCurrentUser();
  if (managesAgency(user.role)) return <>{children}</>;
  return <Refused refusal={refusal} />;
}

function Refused({ refusal }: { refusal: string }) {
  return (
    <>
      <PageHeading title="Admins only">
        <Link to="/clients">Back to clients</Link>
      </PageHeading>
      <ErrorAlert>{refusal}</ErrorAlert>
    </>
  );
}

/** The router's layout route over every admin-only screen: the guard around whichever screen matched. */
export function AdminOnlyPages() {
  const matches = useMatches();
  const handle = matches.at(-1)?.handle as AdminOnlyHandle | undefined;
  return (
    <AdminOnly refusal={handle?.refusal}>
      <Outlet />
    </AdminOnly>
  );
}
