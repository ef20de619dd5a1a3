import { useNavigate, useParams } from 'react-router-dom';
import { ErrorAlert } from '../../../components/alert';
import { LoadState } from '../../../components/load-state';
import { PageHeading } from '../../../components/page-heading';
import { useLoader } from '../../../lib/use-loader';
import { addChild, fetchStudents, saveChild } from '../api';
import { ChildForm } from '../components/child-form';

/** child/new/{clientId}. */
export function AddChildPage() {
  const { id: clientId = '' } = useParams();
  const navigate = useNavigate();
  return (
    <>
      <PageHeading title="Add Child" />
      <ChildForm
        initial={{ firstName: '', lastName: '', dob: '' }}
        onSave={async (child, commandId) => {
          await addChild(clientId, { ...child, commandId });
          navigate(`/client/${clientId}`);
        }}
        onCancel={() => navigate(`/client/${clientId}`)}
      />
    </>
  );
}

// There is no single-child read; the admin's list of all students holds it.
const loadChild = (id: string, signal: AbortSignal) =>
  fetchStudents(signal).then((students) => students.find((student) => student.id === id) ?? null);

/** child/edit/{childId}. */
export function EditChildPage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const { state, retry } = useLoader(loadChild, id);
  return (
    <>
      <PageHeading title="Edit Child" />
      <LoadState state={state} onRetry={retry}>
        {(child) =>
          child ? (
            <ChildForm
              key={child.id}
              initial={{ firstName: child.firstName, lastName: child.lastName, dob: (child.dob ?? '').slice(0, 10) }}
              onSave={async (values, commandId) => {
                await saveChild({ ...values, id: child.id, clientId: child.clientId, commandId });
                navigate(`/client/${child.clientId}`);
              }}
              onCancel={() => navigate(`/client/${child.clientId}`)}
            />
          ) : (
            <ErrorAlert>This child could not be found.</ErrorAlert>
          )
        }
      </LoadState>
    </>
  );
}
