import styled from '@emotion/styled';
import { useState } from 'react';
import { Button } from '../../../components/button';
import { useCommandIds } from '../../../lib/command-id';
import { formatMoney } from '../../../lib/format';
import { errorMessage } from '../../../lib/http';
import { creditLessons } from '../api';

const Said = styled.p({ margin: '0.5rem 0' });

/**
 * "Credit what is owed back" (admins): when a family's lessons changed since they were billed come
 * to less than nothing and it asks for the money now, its latest lessons invoice is credited and
 * that month billed again at once (docs/money-models.md); the server says when nothing is owed back.
 */
export function LessonCreditButton({ clientId, onCredited }: { clientId: string; onCredited: () => void }) {
  const ids = useCommandIds();
  const [said, setSaid] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const action = `lesson-credit:${clientId}`;
  const credit = async () => {
    setBusy(true);
    try {
      const answer = await creditLessons({ clientId, commandId: ids.idFor(action) });
      ids.done(action);
      const { creditNote, invoice } = answer;
      setSaid(
        creditNote
          ? `Credit note ${creditNote.reference} for ${formatMoney(creditNote.total)}` +
              (invoice ? `; the month billed again on ${invoice.reference} for ${formatMoney(invoice.total)}.` : '.')
          : 'The credit note is under way: it appears in the list when it is issued.',
      );
      onCredited();
    } catch (error) {
      ids.done(action, error);
      setSaid(errorMessage(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <Button type="button" variant="secondary" disabled={busy} onClick={credit}>
        {busy ? 'Crediting…' : 'Credit what is owed back'}
      </Button>
      <div role="status">{said ? <Said>{said}</Said> : null}</div>
    </>
  );
}
