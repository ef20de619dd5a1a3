import { consultationBody, consultationCancelBody } from '@agency/contracts';
import { client, consultation, familyInvoice, toPence, toPounds, tutor } from '@agency/domain';
import type { FastifyInstance } from 'fastify';
import type { FamilyInvoicing } from '../family-invoices/family-invoicing';
import { MAIL_REACTOR } from '../mail/mail-reactor-name';
import { type CommandContext, type CommandDependencies, commandRoute } from '../pipeline/command-pipeline';
import { CONSULTATIONS_REACTOR } from './consultation-reactor';

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
 * Consultations (admins only): record, change or cancel one, on its own stream. Its family invoices
 * follow from those events (the consultations reactor issues and credits them); the answer waits
 * for that briefly, so it can name the invoice. Everything the invoice will need is checked
 * before the consultation is recorded, so a recorded consultation is never left unbilled by a refusal.
 */
export async function consultationRoutes(
  app: FastifyInstance,
  { deps, invoicing }: { deps: CommandDependencies; invoicing: FamilyInvoicing },
) {
  const { consultationDecider, consultationStream } = consultation;

  /** The reference of the consultation's current invoice, once the reactor has issued it (null until then). */
  async function invoiceOf(context: CommandContext, state: Saved) {
    if (state.status !== 'recorded') return { reference: null, mailed: false };
    await context.settle([CONSULTATIONS_REACTOR]);
    const invoice = await context.load(
      familyInvoice.familyInvoiceStream(state.consultation.invoiceId),
      familyInvoice.familyInvoiceDecider,
    );
    if (invoice.status === 'none') return { reference: null, mailed: false };
    return { reference: invoice.invoice.reference, mailed: await context.settle([MAIL_REACTOR]) };
  }

  commandRoute(app, deps, {
    url: '/api/consultations',
    roles: ['admin'],
    body: consultationBody,
    handle: async ({ body }, context) => {
      const { run, load, user, newId, now } = context;
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
      const fields = {
        consultation: details,
        invoiceId: newId(),
        family: family.status === 'registered' ? { childIds: family.childIds } : null,
        assessorKnown: !assessor || (await load(tutor.tutorStream(assessor), tutor.tutorDecider)).status !== 'none',
        actor: { role: user.role, tutorId: user.tutorId },
      };
      const command: consultation.ConsultationCommand = body.id
        ? { type: 'ChangeConsultation', ...fields }
        : { type: 'RecordConsultation', ...fields };
      const stream = consultationStream(consultationId);
      // The details' own rules first (pure, whatever the stream holds, so a retry of a run that
      // appended is not refused), then the invoice that will follow: both before anything is written.
      consultationDecider.decide({ ...fields, type: 'RecordConsultation' }, consultationDecider.initialState(), now);
      const billing = await invoicing.billingOf(load, details.clientId);
      if (billing) familyInvoice.checkInvoice({ billing, lines: consultation.consultationLines(details) });
      const saved = await run(stream, consultationDecider, command);
      if (saved.status === 'none') throw new Error('a consultation that was just saved is missing');
      const { reference, mailed } = await invoiceOf(context, saved);
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
      await context.settle([CONSULTATIONS_REACTOR]);
      return { consultation: consultationAnswer(cancelled, null) };
    },
  });
}
