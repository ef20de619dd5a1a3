import { LoadState } from '../../../components/load-state';
import { Panel } from '../../../components/panel';
import { formatDate, formatMoney } from '../../../lib/format';
import { useLoader } from '../../../lib/use-loader';
import { documentUrl, fetchOverview } from '../api';
import { FamilyFrame } from '../components/family-frame';

const STATE_WORDS: Record<string, string> = {
  paid: 'Paid',
  'part-paid': 'Part paid',
  unpaid: 'Unpaid',
  credited: 'Cancelled by a credit note',
};

/** /family/invoices: the family's invoices and credit notes, what is paid and owed, each with its PDF. */
export function FamilyInvoicesPage() {
  const { state, retry } = useLoader(fetchOverview, 'own');
  return (
    <FamilyFrame title="Invoices">
      <LoadState state={state} onRetry={retry}>
        {({ owed, invoices }) => (
          <>
            <p>{owed > 0 ? `You owe £${formatMoney(owed)} in all.` : 'Nothing is owed.'}</p>
            {invoices.length === 0 ? <p>No invoices yet.</p> : null}
            {invoices.map((invoice) => (
              <Panel key={invoice.id} aria-label={`Invoice ${invoice.reference}`}>
                <p>
                  <a href={documentUrl(invoice.id)} target="_blank" rel="noreferrer">
                    Invoice {invoice.reference} (PDF)
                  </a>
                </p>
                <p>
                  {formatDate(invoice.date)} · £{formatMoney(invoice.total)} · due {formatDate(invoice.dueDate)}
                </p>
                <p>
                  {STATE_WORDS[invoice.state] ?? invoice.state}: paid £{formatMoney(invoice.paid)}, owed £
                  {formatMoney(invoice.owed)}
                </p>
                {invoice.creditNote ? (
                  <p>
                    <a href={documentUrl(invoice.creditNote.id)} target="_blank" rel="noreferrer">
                      Credit note {invoice.creditNote.reference} (PDF)
                    </a>{' '}
                    of {formatDate(invoice.creditNote.date)}
                  </p>
                ) : null}
              </Panel>
            ))}
          </>
        )}
      </LoadState>
    </FamilyFrame>
  );
}
