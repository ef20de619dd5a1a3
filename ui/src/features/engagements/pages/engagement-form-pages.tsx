import { useNavigate, useParams, useSearchParams } from 'react-router-dom';
import { ErrorAlert } from '../../../components/alert';
import { ButtonLink } from '../../../components/button';
import { LoadState } from '../../../components/load-state';
import { PageHeading } from '../../../components/page-heading';
import { Panel } from '../../../components/panel';
import { useAgencyToday } from '../../../lib/current-user';
import { useLoader } from '../../../lib/use-loader';
import { type Engagement, type EngagementChange, fetchTutorName, type HistoryRow, saveEngagement } from '../api';
import { EngagementNames, Facts } from '../components/engagement-facts';
import { EngagementForm, type EngagementFormParts, type EngagementFormValues } from '../components/engagement-form';
import { loadEngagement } from './engagement-detail-page';

/** A fraction as the percentage a form shows: 0.125 → '12.5'. */
const percentText = (fraction: number) => String(Math.round(fraction * 10_000) / 100);

const blank: EngagementFormValues = {
  student: null,
  rate: '',
  commissionPct: '0',
  partnerPct: '0',
  date: '',
  subjects: [],
};

const termsOf = (row: Pick<HistoryRow, 'rate' | 'commissionRate' | 'partnerRate'>) => ({
  rate: row.rate.toFixed(2),
  commissionPct: percentText(row.commissionRate),
  partnerPct: percentText(row.partnerRate ?? 0),
});

const loadTutorName = (tutorId: string, signal: AbortSignal) => fetchTutorName(tutorId, signal);

/** engagement/new/{tutorId}: Add Student (admins only: the router's guard, components/admin-only.tsx). */
export function AddEngagementPage() {
  const today = useAgencyToday();
  const { tutorId = '' } = useParams();
  const navigate = useNavigate();
  const { state, retry } = useLoader(loadTutorName, tutorId);
  return (
    <>
      <PageHeading title="Add Student" />
      <LoadState state={state} onRetry={retry}>
        {(tutor) => (
          <>
            <Panel aria-label="Tutor">
              <Facts>
                <dt>Tutor</dt>
                <dd>{tutor.name}</dd>
              </Facts>
            </Panel>
            <EngagementForm
              parts={{ student: true, terms: true, subjects: true, dateLabel: 'Start Date' }}
              initial={{ ...blank, date: today }}
              onSave={async (values, commandId) => {
                const { engagement } = await saveEngagement({
                  commandId,
                  tutorId,
                  studentId: values.student?.id,
                  rate: values.rate,
                  commissionPct: values.commissionPct,
                  partnerPct: values.partnerPct,
                  startDate: values.date,
                  subjects: values.subjects,
                  change: 'start',
                });
                navigate(`/engagement/detail/${tutorId}/${engagement.id}`);
              }}
              onCancel={() => navigate(`/tutor/${tutorId}`)}
            />
          </>
        )}
      </LoadState>
    </>
  );
}

type ChangeScreen = {
  title: string;
  change: EngagementChange;
  parts: EngagementFormParts;
  /** The form's first values; `today` is the agency's. */
  initial: (engagement: Engagement, period: HistoryRow, today: string) => EngagementFormValues;
};

/** A form that changes one engagement: it loads it, shows whose it is, saves and returns to it. */
function EngagementChangePage({ screen }: { screen: ChangeScreen }) {
  const today = useAgencyToday();
  const { tutorId = '', engagementId = '' } = useParams();
  const [search] = useSearchParams();
  const navigate = useNavigate();
  const { state, retry } = useLoader(loadEngagement, { tutorId, engagementId });
  const detail = `/engagement/detail/${tutorId}/${engagementId}`;
  const requested = search.get('period');
  return (
    <>
      <PageHeading title={screen.title} />
      <LoadState state={state} onRetry={retry}>
        {(engagement) => {
          const latest = engagement.history[0];
          const period = requested ? engagement.history.find((row) => row.startDate === requested) : latest;
          if (!period) {
            return (
              <>
                <ErrorAlert>This engagement has no period starting on {requested}.</ErrorAlert>
                <ButtonLink variant="secondary" to={detail}>
                  Back to the engagement
                </ButtonLink>
              </>
            );
          }
          return (
            <>
              <Panel aria-label="Engagement">
                <EngagementNames tutorName={engagement.tutor.name} studentName={engagement.studentName} />
              </Panel>
              <EngagementForm
                key={`${engagement.id}-${period.startDate}`}
                parts={screen.parts}
                initial={screen.initial(engagement, period, today)}
                onSave={async (values, commandId) => {
                  const dated =
                    screen.change === 'termination'
                      ? { startDate: latest?.startDate ?? engagement.startDate, endDate: values.date }
                      : { startDate: values.date };
                  const { repriced } = await saveEngagement({
                    commandId,
                    id: engagement.id,
                    tutorId,
                    change: screen.change,
                    rate: values.rate,
                    commissionPct: values.commissionPct,
                    partnerPct: values.partnerPct,
                    subjects: values.subjects,
                    ...dated,
                    ...(screen.change === 'correction' ? { periodStart: period.startDate } : {}),
                  });
                  // The engagement's page says which lessons the change repriced.
                  navigate(detail, { state: repriced ? { repriced } : undefined });
                }}
                onCancel={() => navigate(detail)}
              />
            </>
          );
        }}
      </LoadState>
    </>
  );
}

const EDIT: ChangeScreen = {
  title: 'Edit Student',
  change: 'correction',
  parts: { terms: true, dateLabel: 'From Date' },
  initial: (_, period) => ({ ...blank, ...termsOf(period), date: period.startDate, subjects: period.subjects }),
};

const RATES: ChangeScreen = {
  title: 'Change Rates',
  change: 'rates',
  parts: { terms: true, dateLabel: 'From Date' },
  initial: (_, latest, today) => ({ ...blank, ...termsOf(latest), date: today, subjects: latest.subjects }),
};

const SUBJECTS: ChangeScreen = {
  title: 'Change Subjects',
  change: 'subjects',
  parts: { subjects: true, dateLabel: 'From Date' },
  initial: (_, latest, today) => ({ ...blank, ...termsOf(latest), date: today, subjects: latest.subjects }),
};

const TERMINATE: ChangeScreen = {
  title: 'Terminate Engagement',
  change: 'termination',
  parts: { dateLabel: 'End Date', submitLabel: 'Terminate' },
  initial: (_, latest, today) => ({ ...blank, ...termsOf(latest), date: today, subjects: latest.subjects }),
};

/** engagement/edit/{tutorId}/{engagementId}?period=YYYY-MM-DD: corrects that history period. */
export const EditEngagementPage = () => <EngagementChangePage key="edit" screen={EDIT} />;
/** engagement/rates/{tutorId}/{engagementId}. */
export const ChangeRatesPage = () => <EngagementChangePage key="rates" screen={RATES} />;
/** engagement/subjects/{tutorId}/{engagementId}. */
export const ChangeSubjectsPage = () => <EngagementChangePage key="subjects" screen={SUBJECTS} />;
/** engagement/terminate/{tutorId}/{engagementId}. */
export const TerminateEngagementPage = () => <EngagementChangePage key="terminate" screen={TERMINATE} />;
