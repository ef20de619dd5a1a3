import { consultation } from '@agency/domain';
import type { FamilyInvoicing } from '../family-invoices/family-invoicing';
import type { Reactor } from '../reactors/reactor';

export const CONSULTATIONS_REACTOR = 'consultations';

/**
 * A consultation's family invoices follow from its events: the invoice it names is issued while
 * it stands, and every invoice that no longer says what it is (changed after issue, or the whole
 * consultation cancelled) is credited by a credit note. Each reaction works from the
 * consultation's stream as it is now, not as it was at the event, so reactions that run late,
 * twice, or after a later change all end in the same documents: a consultation cancelled before
 * its invoice was issued is never invoiced.
 */
export function consultationReactor(invoicing: FamilyInvoicing): Reactor {
  const { consultationDecider, consultationStream } = consultation;
  return {
    name: CONSULTATIONS_REACTOR,
    handles: ['ConsultationRecorded', 'ConsultationChanged', 'ConsultationCancelled'],
    async react(event, act) {
      const consultationId = String(event.data.consultationId);
      const state = await act(consultationId).load(consultationStream(consultationId), consultationDecider);
      if (state.status === 'none') return;
      const cancelled = state.status === 'cancelled';
      const stale = cancelled ? state.invoiceIds : state.invoiceIds.slice(0, -1);
      for (const invoiceId of stale) {
        await invoicing.credit(act(`credit:${invoiceId}`), invoiceId, cancelled ? 'cancelled' : 'changed');
      }
      if (cancelled) return;
      const { invoiceId, clientId } = state.consultation;
      await invoicing.issue(act(`issue:${invoiceId}`), {
        invoiceId,
        clientId,
        billedFor: { kind: 'consultation', id: consultationId },
        lines: consultation.consultationLines(state.consultation),
      });
    },
  };
}
