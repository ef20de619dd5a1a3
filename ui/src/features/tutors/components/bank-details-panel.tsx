import type { TutorBankDetailsAnswer } from '@agency/contracts';
import styled from '@emotion/styled';
import { useState } from 'react';
import { Button } from '../../../components/button';
import { FormActions } from '../../../components/form-actions';
import { FieldRow, FormPanel } from '../../../components/form-layout';
import { LoadState } from '../../../components/load-state';
import { Panel, SectionHeading } from '../../../components/panel';
import { TextField } from '../../../components/text-field';
import { getJson, postJson } from '../../../lib/http';
import { useCommandForm } from '../../../lib/use-command-form';
import { useLoader } from '../../../lib/use-loader';

/** A tutor's bank details in full (admins: docs/money-models.md, "Pay runs"). */
const fetchBankDetails = (tutorId: string, signal?: AbortSignal) =>
  getJson<TutorBankDetailsAnswer>(`/api/tutors/bank-details/${tutorId}`, signal);

const saveBankDetails = (tutorId: string, body: Values & { commandId: string }) =>
  postJson<{ tutorId: string }>(`/api/tutors/bank-details/${tutorId}`, {
    ...body,
    rollNumber: body.rollNumber || null,
  });

type Values = { accountName: string; sortCode: string; accountNumber: string; rollNumber: string };

const Note = styled.p(({ theme }) => ({ color: theme.colors.muted, margin: '0 0 1rem', maxWidth: '44rem' }));
const Details = styled.dl({ display: 'grid', gridTemplateColumns: 'max-content 1fr', gap: '0.35rem 1rem', margin: 0 });

/** An account number shown masked until asked for: the screen may be seen over a shoulder. */
const masked = (digits: string) => `****${digits.slice(-4)}`;

function BankDetailsForm({
  tutorId,
  current,
  onSaved,
}: {
  tutorId: string;
  current: TutorBankDetailsAnswer['bankDetails'];
  onSaved: () => void;
}) {
  const { form, onSubmit, failure } = useCommandForm<Values>({
    defaultValues: {
      accountName: current?.accountName ?? '',
      sortCode: current?.sortCode ?? '',
      accountNumber: current?.accountNumber ?? '',
      rollNumber: current?.rollNumber ?? '',
    },
    save: async (values, commandId) => {
      await saveBankDetails(tutorId, { ...values, commandId });
      onSaved();
    },
  });
  const {
    register,
    formState: { errors, isSubmitting },
  } = form;
  return (
    <FormPanel noValidate onSubmit={onSubmit} aria-label="Bank details">
      <FieldRow>
        <TextField
          id="accountName"
          label="Account name"
          required
          error={errors.accountName?.message}
          {...register('accountName', { required: 'Account name is required' })}
        />
        <TextField
          id="sortCode"
          label="Sort code"
          placeholder="12-34-56"
          required
          error={errors.sortCode?.message}
          {...register('sortCode', { required: 'Sort code is required' })}
        />
        <TextField
          id="accountNumber"
          label="Account number"
          inputMode="numeric"
          required
          error={errors.accountNumber?.message}
          {...register('accountNumber', { required: 'Account number is required' })}
        />
        <TextField
          id="rollNumber"
          label="Roll number (building society, optional)"
          error={errors.rollNumber?.message}
          {...register('rollNumber')}
        />
      </FieldRow>
      <FormActions failure={failure} submitting={isSubmitting} onCancel={onSaved} />
    </FormPanel>
  );
}

const loadDetails = (tutorId: string, signal: AbortSignal) => fetchBankDetails(tutorId, signal);

/**
 * The tutor page's Bank details panel (admins only: the server refuses everyone else): the account
 * the tutor's pay runs pay into, masked until shown, and the form that records new details.
 */
export function BankDetailsPanel({ tutorId }: { tutorId: string }) {
  const details = useLoader(loadDetails, tutorId);
  const [editing, setEditing] = useState(false);
  const [shown, setShown] = useState(false);
  return (
    <Panel aria-labelledby="bank-details-heading">
      <SectionHeading id="bank-details-heading">Bank Details</SectionHeading>
      <LoadState state={details.state} onRetry={details.retry}>
        {(answer) =>
          editing ? (
            <BankDetailsForm
              tutorId={tutorId}
              current={answer.bankDetails}
              onSaved={() => {
                setEditing(false);
                details.refresh();
              }}
            />
          ) : (
            <>
              {answer.erased ? (
                <Note>Erased with the tutor's personal data: they cannot be paid by a pay run.</Note>
              ) : answer.bankDetails ? (
                <Details>
                  <dt>Account name</dt>
                  <dd>{answer.bankDetails.accountName}</dd>
                  <dt>Sort code</dt>
                  <dd>{answer.bankDetails.sortCode}</dd>
                  <dt>Account number</dt>
                  <dd>{shown ? answer.bankDetails.accountNumber : masked(answer.bankDetails.accountNumber)}</dd>
                  {answer.bankDetails.rollNumber ? (
                    <>
                      <dt>Roll number</dt>
                      <dd>{answer.bankDetails.rollNumber}</dd>
                    </>
                  ) : null}
                </Details>
              ) : (
                <Note>
                  No bank details: pay runs list this tutor as "cannot pay" and leave them out of the bank file.
                </Note>
              )}
              {answer.erased ? null : (
                <FieldRow>
                  {answer.bankDetails ? (
                    <Button type="button" variant="secondary" onClick={() => setShown(!shown)}>
                      {shown ? 'Hide account number' : 'Show account number'}
                    </Button>
                  ) : null}
                  <Button type="button" onClick={() => setEditing(true)}>
                    {answer.bankDetails ? 'Change bank details' : 'Add bank details'}
                  </Button>
                </FieldRow>
              )}
            </>
          )
        }
      </LoadState>
    </Panel>
  );
}
