import styled from '@emotion/styled';
import { LoadState } from '../../../components/load-state';
import { PageHeading } from '../../../components/page-heading';
import { Panel, SectionHeading } from '../../../components/panel';
import { SettingsNav } from '../../../components/settings-nav';
import { formatDate } from '../../../lib/format';
import {
  type AgencyMoneyModelAnswer,
  fetchAgencyMoneyModel,
  MODEL_MEANING,
  modelLabel,
  monthOf,
} from '../../../lib/money-models';
import { useLoader } from '../../../lib/use-loader';
import { MoneyModelForm } from '../components/money-model-form';

const loadModel = (_: 'money-model', signal: AbortSignal) => fetchAgencyMoneyModel(signal);

const Muted = styled.p(({ theme }) => ({ color: theme.colors.muted, margin: '0.25rem 0 0' }));
const List = styled.ul({ margin: 0, paddingLeft: '1.25rem', '& li': { margin: '0.35rem 0' } });

type Terms = AgencyMoneyModelAnswer['inForce'];
const termsText = (terms: Terms) =>
  `${modelLabel(terms.model)}${terms.model === 'agency-sells-tuition' ? (terms.vatRate ? `, VAT ${terms.vatRate} %` : ', VAT exempt') : ''}${terms.payAfterFamilyPays ? ', pay after the family pays' : ''}`;

/** The model in force today and the changes to come, each with its date. */
function InForce({ current }: { current: AgencyMoneyModelAnswer }) {
  const { inForce, upcoming } = current;
  return (
    <Panel aria-labelledby="in-force-heading">
      <SectionHeading id="in-force-heading">In force</SectionHeading>
      <p>
        <strong>{termsText(inForce)}</strong>
        {inForce.from ? ` since ${formatDate(inForce.from)}` : ' (the default: nothing chosen yet)'}
      </p>
      <Muted>{MODEL_MEANING[inForce.model]}</Muted>
      <SectionHeading as="h3" style={{ fontSize: '1.05rem', margin: '1.25rem 0 0.5rem' }}>
        Upcoming changes
      </SectionHeading>
      {upcoming.length === 0 ? (
        <Muted>None.</Muted>
      ) : (
        <List aria-label="Upcoming changes">
          {upcoming.map((change) => (
            <li key={change.from}>
              From {monthOf(change.from)} ({formatDate(change.from)}): <strong>{termsText(change)}</strong>
            </li>
          ))}
        </List>
      )}
    </Panel>
  );
}

/** settings/money-model (admins; auditors read it): how the agency is paid, from which month. */
export function MoneyModelPage() {
  const { state, retry, refresh } = useLoader(loadModel, 'money-model');
  return (
    <>
      <PageHeading title="Settings" />
      <SettingsNav />
      <LoadState state={state} onRetry={retry}>
        {(current) => (
          <>
            <InForce current={current} />
            <MoneyModelForm current={current} onSaved={refresh} />
          </>
        )}
      </LoadState>
    </>
  );
}
