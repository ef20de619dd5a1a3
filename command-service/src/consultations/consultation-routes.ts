import { consultationBody, consultationCancelBody } from '@agency/contracts';
import { client, consultation, toPence, toPounds, tutor } from '@agency/domain';
import type { FastifyInstance } from 'fastify';
import type { FamilyInvoicing } from '../family-invoices/family-invoicing';
import { type CommandContext, type CommandDependencies, commandRoute } from '../pipeline/command-pipeline';

type Saved = Exclude<consultation.ConsultationState, { status: 'none' }>;

/** The saved consultation as the form and the list name its fields (client and child are ids). */
function consultationAnswer(state: Saved, invoiceReference: string | null) {
  const c = state.consultation;
  return {
    id: c.consultationId,
    client: c.clientId,
    child: c.childId,
    date: c.date,
    amount: toPounds(c.amountPence),
    assessment: c.assessment !== null,
    assessmentDetails: c.assessment,
    invoiceId: c.invoiceId,
    invoiceReference,
    cancelled: state.status === 'cancelled',
  };
}

/**
 * Consultations (admins only): record or change one, billing it at once on a family invoice, or
 * cancel it. An invoice that no longer says what the consultation is (changed after issue, or
 * cancelled) is credited as a whole by a credit note, and a changed one gets a new invoice.
 */
export async function consultationRoutes(
  app: FastifyInstance,
  { deps, invoicing }: { deps: CommandDependencies; invoicing: FamilyInvoicing },
) {
  const { consultationDecider, consultationStream } = consultation;

  /** Credits every earlier invoice of the consultation (all of them once it is cancelled). */
  async function creditStale(context: CommandContext, state: Saved) {
    const stale = state.status === 'cancelled' ? state.invoiceIds : state.invoiceIds.slice(0, -1);
    for (const invoiceId of stale) {
      await invoicing.credit(context, invoiceId, state.status === 'cancelled' ? 'cancelled' : 'changed');
    }
  }

  commandRoute(app, deps, {
    url: '/api/consultations',
    roles: ['admin'],
    body: consultationBody,
    handle: async ({ body }, context) => {
      const { run, load, user, newId } = context;
      const agency = await invoicing.agencyDetails(load);
      const family = await load(client.clientStream(body.client), client.clientDecider);
      const consultationId = body.id ?? newId();
      const details = {
        consultationId,
        clientId: body.client,
        childId: body.child,
        date: body.date,
        amountPence: body.amount === undefined ? agency.defaultConsultationPence : toPence(body.amount, 'Amount'),
        assessment: body.assessment
          ? { subjects: body.assessmentDetails?.subjects ?? [], tutorId: body.assessmentDetails?.tutorId ?? null }
          : null,
      };
      const assessor = details.assessment?.tutorId;
      const command = {
        consultation: details,
        invoiceId: newId(),
        family: family.status === 'registered' ? { childIds: family.childIds } : null,
        assessorKnown: !assessor || (await load(tutor.tutorStream(assessor), tutor.tutorDecider)).status !== 'none',
        actor: { role: user.role, tutorId: user.tutorId },
      };
      const saved = await run(
        consultationStream(consultationId),
        consultationDecider,
        body.id ? { type: 'ChangeConsultation', ...command } : { type: 'RecordConsultation', ...command },
      );
      if (saved.status === 'none') throw new Error('a consultation that was just saved is missing');
      let reference: string | null = null;
      let mailed = false;
      if (saved.status === 'recorded') {
        await creditStale(context, saved);
        const { issued, mailed: sent } = await invoicing.issue(context, {
          invoiceId: saved.consultation.invoiceId,
          clientId: saved.consultation.clientId,
          billedFor: { kind: 'consultation', id: consultationId },
          lines: consultation.consultationLines(saved.consultation),
        });
        reference = issued.invoice.reference;
        mailed = sent;
      }
      return { consultation: consultationAnswer(saved, reference), mailed };
    },
  });

  commandRoute(app, deps, {
    url: '/api/consultations/cancel',
    roles: ['admin'],
    body: consultationCancelBody,
    handle: async ({ body }, context) => {
      const { run, user } = context;
      const cancelled = await run(consultationStream(body.id), consultationDecider, {
        type: 'CancelConsultation',
        actor: { role: user.role, tutorId: user.tutorId },
      });
      if (cancelled.status === 'none') throw new Error('a consultation that was just cancelled is missing');
      await creditStale(context, cancelled);
      return { consultation: consultationAnswer(cancelled, null) };
    },
  });
}
