import styled from '@emotion/styled';
import { FormActions } from '../../../components/form-actions';
import { FieldRow, FormPanel } from '../../../components/form-layout';
import { LoadState } from '../../../components/load-state';
import { Panel, SectionHeading } from '../../../components/panel';
import { Select } from '../../../components/select';
import { TextField } from '../../../components/text-field';
import { formatDate } from '../../../lib/format';
import {
  type EngagementMoneyModelAnswer,
  fetchEngagementMoneyModel,
  MODEL_MEANING,
  MODEL_OPTIONS,
  type MoneyModel,
  modelLabel,
  monthOf,
  saveEngagementMoneyModel,
} from '../../../lib/money-models';
import { useCommandForm } from '../../../lib/use-command-form';
import { useLoader } from '../../../lib/use-loader';
import { required } from '../../../lib/validation';

const AGENCY = 'agency';
type Values = { model: MoneyModel | typeof AGENCY; from: string };

const Muted = styled.p(({ theme }) => ({ color: theme.colors.muted, margin: '0.25rem 0 0.75rem' }));
const List = styled.ul({ margin: '0 0 1rem', paddingLeft: '1.25rem' });

const loadModel = (engagementId: string, signal: AbortSignal) => fetchEngagementMoneyModel(engagementId, signal);
const whose = (own: boolean) => (own ? "the engagement's own" : "the agency's");

function OwnModelForm({ answer, onSaved }: { answer: EngagementMoneyModelAnswer; onSaved: () => void }) {
  const { form, onSubmit, failure, saved } = useCommandForm<Values>({
    defaultValues: { model: answer.inForce.own ? answer.inForce.model : AGENCY, from: answer.today.slice(0, 7) },
    save: async ({ model, from }, commandId) => {
      await saveEngagementMoneyModel(answer.engagementId, { commandId, from, model: model === AGENCY ? null : model });
      onSaved();
    },
  });
  const {
    register,
    formState: { errors, isSubmitting },
  } = form;
  return (
    <FormPanel noValidate onSubmit={onSubmit} aria-label="Engagement money model">
      <FieldRow>
        <Select
          id="engagement-model"
          label="Its model"
          options={[{ value: AGENCY, label: "The agency's model" }, ...MODEL_OPTIONS]}
          error={errors.model?.message}
          {...register('model')}
        />
        <TextField
          id="engagement-model-from"
          type="month"
          label="From (month)"
          required
          error={errors.from?.message}
          {...register('from', { validate: required('A month is required') })}
        />
      </FieldRow>
      <FormActions failure={failure} submitting={isSubmitting} saved={saved} onCancel={() => form.reset()} />
    </FormPanel>
  );
}

/**
 * The engagement's page: which money model its lessons are under today (its own or the agency's),
 * what changes when; an admin gives it its own model from a month on, or the agency's again.
 */
export function EngagementMoneyModelPanel({ engagementId, editable }: { engagementId: string; editable: boolean }) {
  const { state, retry, refresh } = useLoader(loadModel, engagementId);
  return (
    <Panel aria-labelledby="money-model-heading">
      <SectionHeading id="money-model-heading">Money model</SectionHeading>
      <LoadState state={state} onRetry={retry}>
        {(answer) => (
          <>
            <p>
              <strong>{modelLabel(answer.inForce.model)}</strong> ({whose(answer.inForce.own)})
            </p>
            <Muted>{MODEL_MEANING[answer.inForce.model]}</Muted>
            {answer.upcoming.length > 0 ? (
              <List aria-label="Upcoming money model changes">
                {answer.upcoming.map((change) => (
                  <li key={change.from}>
                    From {monthOf(change.from)} ({formatDate(change.from)}): {modelLabel(change.model)} (
                    {whose(change.own)})
                  </li>
                ))}
              </List>
            ) : null}
            {editable ? <OwnModelForm answer={answer} onSaved={refresh} /> : null}
          </>
        )}
      </LoadState>
    </Panel>
  );
}
