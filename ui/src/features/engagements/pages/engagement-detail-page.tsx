import type { RepricedLessons } from '@agency/contracts';
import { maySee } from '@agency/contracts/visibility';
import styled from '@emotion/styled';
import { Link, useLocation, useNavigate, useParams } from 'react-router-dom';
import { AsOfControl } from '../../../components/as-of';
import { ButtonLink, ButtonRow } from '../../../components/button';
import { HistoryPanel } from '../../../components/history-panel';
import { LoadState } from '../../../components/load-state';
import { PageHeading } from '../../../components/page-heading';
import { Panel, SectionHeading } from '../../../components/panel';
import { Table, TableWrap, Td, Th, Tr } from '../../../components/table';
import { useAsOf } from '../../../lib/as-of';
import { useCurrentUser } from '../../../lib/current-user';
import { formatDate, formatMoney, formatPercent } from '../../../lib/format';
import { useLoader } from '../../../lib/use-loader';
import { type Engagement, fetchEngagement, type HistoryRow } from '../api';
import { EngagementMoneyModelPanel } from '../components/money-model-panel';
import { RepricedNotice } from '../components/repriced-notice';

const Ended = styled.p(({ theme }) => ({ color: theme.colors.muted, margin: '0.75rem 0 0' }));
const Latest = styled.span(({ theme }) => ({
  marginLeft: '0.5rem',
  fontSize: '0.8rem',
  fontWeight: 600,
  color: theme.colors.primary,
}));

export const engagementTitle = (engagement: Engagement) => `${engagement.tutor.name} — ${engagement.studentName}`;

export const loadEngagement = (ids: { tutorId: string; engagementId: string; asOf?: string }, signal: AbortSignal) =>
  fetchEngagement(ids, signal);

const pounds = (rate: number) => `£${formatMoney(rate)}`;
const subjectList = (subjects: string[]) => (subjects.length > 0 ? subjects.join(', ') : '—');

function HistoryTable({
  engagement,
  editable,
  showPartner,
}: {
  engagement: Engagement;
  editable: boolean;
  /** A tutor's answer has no partner share (the one visibility rule): its column goes too. */
  showPartner: boolean;
}) {
  const navigate = useNavigate();
  const editPath = (row: HistoryRow) =>
    `/engagement/edit/${engagement.tutor.id}/${engagement.id}?period=${encodeURIComponent(row.startDate)}`;
  return (
    <TableWrap>
      <Table>
        <thead>
          <tr>
            <Th scope="col">Start Date</Th>
            <Th scope="col">End Date</Th>
            <Th scope="col" style={{ textAlign: 'right' }}>
              Rate
            </Th>
            <Th scope="col" style={{ textAlign: 'right' }}>
              Commission
            </Th>
            {showPartner ? (
              <Th scope="col" style={{ textAlign: 'right' }}>
                Partner Share
              </Th>
            ) : null}
            <Th scope="col">Subjects</Th>
          </tr>
        </thead>
        <tbody>
          {engagement.history.map((row) => (
            <Tr
              key={row.startDate}
              clickable={editable}
              onClick={editable ? () => navigate(editPath(row)) : undefined}
              aria-current={row.latest ? 'true' : undefined}
            >
              <Td>
                {editable ? (
                  <Link
                    to={editPath(row)}
                    aria-label={`Edit the period from ${formatDate(row.startDate)}`}
                    onClick={(event) => event.stopPropagation()}
                  >
                    {formatDate(row.startDate)}
                  </Link>
                ) : (
                  formatDate(row.startDate)
                )}
                {row.latest ? <Latest>latest</Latest> : null}
              </Td>
              <Td nowrap>{formatDate(row.endDate)}</Td>
              <Td numeric>{pounds(row.rate)}</Td>
              <Td numeric>{formatPercent(row.commissionRate)}</Td>
              {showPartner ? <Td numeric>{formatPercent(row.partnerRate)}</Td> : null}
              <Td>{subjectList(row.subjects)}</Td>
            </Tr>
          ))}
        </tbody>
      </Table>
    </TableWrap>
  );
}

/** `past`: shown as of an earlier moment, which is read-only (an edit would change the present). */
function EngagementDetail({ engagement, past }: { engagement: Engagement; past: boolean }) {
  const user = useCurrentUser();
  const admin = user.role === 'admin' && !past;
  const showPartner = maySee(user.role, 'partnerRate');
  const base = `${engagement.tutor.id}/${engagement.id}`;
  return (
    <>
      <Panel aria-labelledby="terms-heading">
        <SectionHeading id="terms-heading">Engagement</SectionHeading>
        <TableWrap>
          <Table>
            <thead>
              <tr>
                <Th scope="col">Start Date</Th>
                <Th scope="col" style={{ textAlign: 'right' }}>
                  Rate
                </Th>
                <Th scope="col" style={{ textAlign: 'right' }}>
                  Commission %
                </Th>
                {showPartner ? (
                  <Th scope="col" style={{ textAlign: 'right' }}>
                    Partner Share %
                  </Th>
                ) : null}
                <Th scope="col">Subjects</Th>
              </tr>
            </thead>
            <tbody>
              <Tr>
                <Td nowrap>{formatDate(engagement.startDate)}</Td>
                <Td numeric>{pounds(engagement.rate)}</Td>
                <Td numeric>{formatPercent(engagement.commissionRate)}</Td>
                {showPartner ? <Td numeric>{formatPercent(engagement.partnerRate)}</Td> : null}
                <Td>{subjectList(engagement.subjects)}</Td>
              </Tr>
            </tbody>
          </Table>
        </TableWrap>
        {engagement.endDate ? <Ended>Ended on {formatDate(engagement.endDate)}.</Ended> : null}
        {admin && !engagement.endDate ? (
          <ButtonRow>
            <ButtonLink to={`/engagement/rates/${base}`}>Change Rates</ButtonLink>
            <ButtonLink to={`/engagement/subjects/${base}`}>Change Subjects</ButtonLink>
            <ButtonLink variant="secondary" to={`/engagement/terminate/${base}`}>
              Terminate
            </ButtonLink>
          </ButtonRow>
        ) : null}
      </Panel>
      {engagement.history.length > 0 ? (
        <section aria-labelledby="history-heading">
          <SectionHeading id="history-heading">History</SectionHeading>
          <HistoryTable engagement={engagement} editable={admin} showPartner={showPartner} />
        </section>
      ) : null}
    </>
  );
}

/**
 * engagement/detail/{tutorId}/{engagementId}; after a change of rates its form passes what the
 * change repriced (`repriced` in the location's state), shown above the terms.
 */
export function EngagementDetailPage() {
  const { tutorId = '', engagementId = '' } = useParams();
  const { asOf } = useAsOf();
  const { state, retry } = useLoader(loadEngagement, { tutorId, engagementId, asOf });
  const user = useCurrentUser();
  const repriced = (useLocation().state as { repriced?: RepricedLessons } | null)?.repriced;
  return (
    <>
      <PageHeading title={state.status === 'loaded' ? engagementTitle(state.data) : 'Engagement'}>
        {user.role === 'tutor' ? null : <Link to={`/tutor/${tutorId}`}>Back to tutor</Link>}
      </PageHeading>
      {repriced && !asOf ? <RepricedNotice repriced={repriced} /> : null}
      <AsOfControl id="engagement" />
      <LoadState state={state} onRetry={retry}>
        {(engagement) => <EngagementDetail engagement={engagement} past={Boolean(asOf)} />}
      </LoadState>
      {asOf ? null : <EngagementMoneyModelPanel engagementId={engagementId} editable={user.role === 'admin'} />}
      <HistoryPanel streamId={`engagement-${engagementId}`} />
    </>
  );
}
