import { LoadState } from '../../../components/load-state';
import { PageHeading } from '../../../components/page-heading';
import { SettingsNav } from '../../../components/settings-nav';
import { useLoader } from '../../../lib/use-loader';
import { fetchReminderSchedule } from '../api';
import { RemindersForm } from '../components/reminders-form';

const loadSchedule = (_: 'reminders', signal: AbortSignal) => fetchReminderSchedule(signal);

/** settings/reminders (admins; auditors read it): when overdue family invoices are chased, and the late fee. */
export function RemindersPage() {
  const { state, retry } = useLoader(loadSchedule, 'reminders');
  return (
    <>
      <PageHeading title="Settings" />
      <SettingsNav />
      <LoadState state={state} onRetry={retry}>
        {(schedule) => <RemindersForm schedule={schedule} />}
      </LoadState>
    </>
  );
}
