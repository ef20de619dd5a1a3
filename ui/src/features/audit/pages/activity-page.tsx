import type { ActivityAnswer } from '@agency/contracts';
import styled from '@emotion/styled';
import dayjs from 'dayjs';
import { useSearchParams } from 'react-router-dom';
import { DateField } from '../../../components/date-field';
import { LoadState } from '../../../components/load-state';
import { FilterBar, FilterItem } from '../../../components/month-filter';
import { PageHeading } from '../../../components/page-heading';
import { Select } from '../../../components/select';
import { EmptyRow, Table, TableWrap, Td, Th } from '../../../components/table';
import { useAgencyToday } from '../../../lib/current-user';
import { activitySearch, fetchActivity } from '../../../lib/history';
import { useLoader } from '../../../lib/use-loader';

const Muted = styled.span(({ theme }) => ({ color: theme.colors.muted }));
const Steps = styled.ul({ margin: 0, paddingLeft: '1.1rem' });

type Period = { from: string; to: string; userId: string };

const loadActivity = (period: Period, signal: AbortSignal) => fetchActivity(period, signal);

/**
 * activity (admins and auditors): the commands of a period — who, when (agency time), what their
 * events did in words and on which entity — from the event store itself; filters live in the
 * address, and the same list downloads as CSV.
 */
export function ActivityPage() {
  const today = useAgencyToday();
  const [params, setParams] = useSearchParams();
  const period: Period = {
    from: params.get('from') || dayjs(today).subtract(6, 'day').format('YYYY-MM-DD'),
    to: params.get('to') || today,
    userId: params.get('userId') ?? '',
  };
  const activity = useLoader(loadActivity, period);
  const choose = (next: Partial<Period>) => {
    const values = { ...period, ...next };
    setParams(activitySearch(values), { replace: true });
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
            onChange={(e) => choose({ from: e.target.value })}
          />
        </FilterItem>
        <FilterItem>
          <DateField id="activity-to" label="To" value={period.to} onChange={(e) => choose({ to: e.target.value })} />
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
      <LoadState state={activity.state} onRetry={activity.retry}>
        {(data) => <ActivityTable data={data} />}
      </LoadState>
    </>
  );
}

function ActivityTable({ data }: { data: ActivityAnswer }) {
  return (
    <TableWrap>
      <Table>
        <caption className="visually-hidden">
          Commands from {data.from} to {data.to}
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
          {data.commands.length === 0 ? (
            <tr>
              <EmptyRow colSpan={4}>Nothing was done in this period.</EmptyRow>
            </tr>
          ) : (
            data.commands.map((entry) => (
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
                <Td>{entry.streams.join(', ')}</Td>
              </tr>
            ))
          )}
        </tbody>
      </Table>
    </TableWrap>
  );
}
