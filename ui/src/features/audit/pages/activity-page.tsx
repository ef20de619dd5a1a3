import { type ActivityAnswer, type ActivityEntryView, type ActivitySubjectView, LIMITS } from '@agency/contracts';
import styled from '@emotion/styled';
import dayjs from 'dayjs';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { ErrorAlert } from '../../../components/alert';
import { Button } from '../../../components/button';
import { DateField } from '../../../components/date-field';
import { LoadState } from '../../../components/load-state';
import { FilterBar, FilterItem } from '../../../components/month-filter';
import { PageHeading } from '../../../components/page-heading';
import { Select } from '../../../components/select';
import { EmptyRow, Table, TableWrap, Td, Th } from '../../../components/table';
import { useAgencyToday } from '../../../lib/current-user';
import { type ActivityPeriod, activityPeriodWithin, activitySearch, fetchActivity } from '../../../lib/history';
import { useLoader } from '../../../lib/use-loader';

const Muted = styled.span(({ theme }) => ({ color: theme.colors.muted }));
const Steps = styled.ul({ margin: 0, paddingLeft: '1.1rem' });
const Hint = styled.p(({ theme }) => ({ color: theme.colors.muted, margin: '0 0 0.75rem' }));
const More = styled.div({ marginTop: '0.75rem' });

const loadActivity = (period: ActivityPeriod, signal: AbortSignal) => fetchActivity(period, signal);

/**
 * activity (admins and auditors): the commands of a period — who, when (agency time), what their
 * events did in words and on which entity — from the event store itself, a page at a time (Load
 * more); filters live in the address, the period spans `LIMITS.maxActivityDays` days at most, and
 * the whole period downloads as CSV.
 */
export function ActivityPage() {
  const today = useAgencyToday();
  const [params, setParams] = useSearchParams();
  // A period typed into the address is kept within the bound, as one chosen here is.
  const period: ActivityPeriod = activityPeriodWithin({
    from: params.get('from') || dayjs(today).subtract(6, 'day').format('YYYY-MM-DD'),
    to: params.get('to') || today,
    userId: params.get('userId') ?? '',
  });
  const activity = useLoader(loadActivity, period);
  const choose = (next: Partial<ActivityPeriod>, changed?: 'from' | 'to') => {
    setParams(activitySearch(activityPeriodWithin({ ...period, ...next }, changed)), { replace: true });
  };
  const users = activity.state.data?.users ?? [];
  return (
    <>
      <PageHeading title="Activity">
        <a href={`/api/activity?${activitySearch(period, 'csv')}`} download>
          Download CSV
        </a>
      </PageHeading>
      <FilterBar>
        <FilterItem>
          <DateField
            id="activity-from"
            label="From"
            value={period.from}
            onChange={(e) => choose({ from: e.target.value }, 'from')}
          />
        </FilterItem>
        <FilterItem>
          <DateField
            id="activity-to"
            label="To"
            value={period.to}
            onChange={(e) => choose({ to: e.target.value }, 'to')}
          />
        </FilterItem>
        <FilterItem wide>
          <Select
            id="activity-user"
            label="User"
            value={period.userId}
            onChange={(e) => choose({ userId: e.target.value })}
            options={[
              { value: '', label: 'Everyone' },
              ...users.map((user) => ({ value: user.id, label: `${user.name} (${user.role})` })),
            ]}
          />
        </FilterItem>
      </FilterBar>
      <Hint>A period of up to {LIMITS.maxActivityDays} days; moving one end further moves the other with it.</Hint>
      <LoadState state={activity.state} onRetry={activity.retry}>
        {(data) => <ActivityPages key={JSON.stringify(period)} first={data} period={period} />}
      </LoadState>
    </>
  );
}

/** The commands of `later` added to `shown`; a command cut in two by a page boundary stays one row. */
function joined(shown: ActivityEntryView[], later: ActivityEntryView[]): ActivityEntryView[] {
  const all = [...shown];
  const byId = new Map(all.map((entry, index) => [entry.commandId, index]));
  for (const entry of later) {
    const at = byId.get(entry.commandId);
    const earlier = at === undefined ? undefined : all[at];
    if (at === undefined || !earlier) {
      byId.set(entry.commandId, all.push(entry) - 1);
      continue;
    }
    all[at] = {
      ...earlier,
      streams: [...new Set([...earlier.streams, ...entry.streams])],
      subjects: [
        ...earlier.subjects,
        ...entry.subjects.filter((subject) => !earlier.streams.includes(subject.streamId)),
      ],
      what: [...earlier.what, ...entry.what],
    };
  }
  return all;
}

/** The first page, and those asked for after it with Load more (kept until the period changes: the parent keys it). */
function ActivityPages({ first, period }: { first: ActivityAnswer; period: ActivityPeriod }) {
  const [later, setLater] = useState<{ commands: ActivityEntryView[]; nextCursor: string | null }>({
    commands: [],
    nextCursor: first.nextCursor,
  });
  const [loading, setLoading] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const commands = joined(first.commands, later.commands);
  const loadMore = async () => {
    if (!later.nextCursor) return;
    setLoading(true);
    setFailure(null);
    try {
      const page = await fetchActivity({ ...period, cursor: later.nextCursor });
      setLater((before) => ({ commands: [...before.commands, ...page.commands], nextCursor: page.nextCursor }));
    } catch (error) {
      setFailure(error instanceof Error ? error.message : 'The next page could not be loaded.');
    } finally {
      setLoading(false);
    }
  };
  return (
    <>
      <ActivityTable from={first.from} to={first.to} commands={commands} />
      {failure && <ErrorAlert>{failure}</ErrorAlert>}
      {later.nextCursor && (
        <More>
          <Button type="button" variant="secondary" disabled={loading} onClick={loadMore}>
            {loading ? 'Loading…' : 'Load more'}
          </Button>{' '}
          <Muted aria-live="polite">{commands.length} shown so far</Muted>
        </More>
      )}
    </>
  );
}

function ActivityTable({ from, to, commands }: { from: string; to: string; commands: ActivityEntryView[] }) {
  return (
    <TableWrap>
      <Table>
        <caption className="visually-hidden">
          Commands from {from} to {to}
        </caption>
        <thead>
          <tr>
            <Th scope="col">When</Th>
            <Th scope="col">Who</Th>
            <Th scope="col">What</Th>
            <Th scope="col">Entity</Th>
          </tr>
        </thead>
        <tbody>
          {commands.length === 0 ? (
            <tr>
              <EmptyRow colSpan={4}>Nothing was done in this period.</EmptyRow>
            </tr>
          ) : (
            commands.map((entry) => (
              <tr key={entry.commandId}>
                <Td nowrap>{entry.when}</Td>
                <Td>
                  {entry.who.name} <Muted>({entry.who.role})</Muted>
                </Td>
                <Td>
                  <Steps>
                    {entry.what.map((what, index) => (
                      // The same words can repeat within one command (two alike lessons).
                      <li key={index}>{what}</li>
                    ))}
                  </Steps>
                </Td>
                <Td>
                  <Steps>
                    {entry.subjects.map((subject) => (
                      <li key={subject.streamId}>
                        <Subject subject={subject} />
                      </li>
                    ))}
                  </Steps>
                </Td>
              </tr>
            ))
          )}
        </tbody>
      </Table>
    </TableWrap>
  );
}

/** What a command was about: its kind, and its name linking to its page (the stream id is its title, for the record). */
function Subject({ subject }: { subject: ActivitySubjectView }) {
  return (
    <span title={subject.streamId}>
      <Muted>{subject.kind}</Muted> {subject.path ? <Link to={subject.path}>{subject.name}</Link> : subject.name}
    </span>
  );
}
