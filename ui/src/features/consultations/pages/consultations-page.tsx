import { useNavigate } from 'react-router-dom';
import { Button } from '../../../components/button';
import { LoadState } from '../../../components/load-state';
import { PageHeading } from '../../../components/page-heading';
import { useCurrentUser } from '../../../lib/current-user';
import { useLiveRefresh } from '../../../lib/live-updates';
import { useLoader } from '../../../lib/use-loader';
import { fetchConsultations } from '../api';
import { ConsultationsTable } from '../components/consultations-table';

const loadConsultations = (_: 'all', signal: AbortSignal) => fetchConsultations(signal);

/** consultations: every consultation, newest first, with its family invoice (admins only). */
export function ConsultationsPage() {
  const navigate = useNavigate();
  const { state, retry, refresh } = useLoader(loadConsultations, 'all');
  // Invoices and credit notes are issued by a workflow a moment after the command: the list
  // follows them (and other admins' changes) without a reload.
  useLiveRefresh(['consultations', 'family-invoices'], refresh);
  // An auditor reads the list and changes nothing.
  const admin = useCurrentUser().role === 'admin';
  return (
    <>
      <PageHeading title="Consultations">
        {admin ? (
          <Button type="button" onClick={() => navigate('/consultations/new')}>
            New Consultation
          </Button>
        ) : null}
      </PageHeading>
      <LoadState state={state} onRetry={retry}>
        {(consultations) => <ConsultationsTable consultations={consultations} admin={admin} onChanged={refresh} />}
      </LoadState>
    </>
  );
}
