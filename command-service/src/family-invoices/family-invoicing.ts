import type { AgencyDetails, BilledFor, FamilyBilling, FamilyInvoiceLine } from '@agency/contracts';
import { addDays, agency, client, displayDate, familyInvoice, formatPounds, todayIn } from '@agency/domain';
import { HttpError } from '@agency/platform';
import { renderFamilyDocument } from '@agency/platform/documents/family-invoice-document';
import type { FastifyBaseLogger } from 'fastify';
import type { Mailer } from '../mail/mailer';
import { familyDocumentMessage } from '../mail/messages';
import type { CommandContext } from '../pipeline/command-pipeline';

type Issued = Exclude<familyInvoice.FamilyInvoiceState, { status: 'none' }>;

/** Enough tries for every save of a busy office at the same moment: each try that loses lets another win. */
const SEQUENCE_ATTEMPTS = 25;

/**
 * Family invoices as the command side issues them: the agency-wide reference (a number of the
 * sequence stream, taken at its expected revision), the family's billing details and the
 * agency's terms from their own streams (never a read model that may lag), the PDF e-mailed to
 * the family's first contact. A mail that cannot be sent leaves the invoice issued (`mailed: false`).
 */
export function familyInvoicing({
  mailer,
  timeZone,
  log,
}: {
  mailer: Mailer;
  timeZone: string;
  log: FastifyBaseLogger;
}) {
  const { familyInvoiceDecider, familyInvoiceStream, sequenceDecider, sequenceStream } = familyInvoice;

  const agencyDetails = async (load: CommandContext['load']) =>
    agency.detailsOf(await load(agency.agencyStream(), agency.agencyDecider));

  async function takeNumber(run: CommandContext['run'], documentId: string): Promise<number> {
    for (let attempt = 1; ; attempt++) {
      try {
        const state = await run(sequenceStream(), sequenceDecider, { type: 'TakeNumber', documentId });
        const number = state.numbers.get(documentId);
        if (number === undefined) throw new Error('a number that was just taken is missing');
        return number;
      } catch (error) {
        const busy = error instanceof HttpError && error.code === 'concurrent_change';
        if (!busy || attempt >= SEQUENCE_ATTEMPTS) throw error;
      }
    }
  }

  async function mail(issued: Issued, details: AgencyDetails, kind: 'invoice' | 'credit note'): Promise<boolean> {
    const { invoice, creditNote } = issued;
    const document = kind === 'invoice' ? invoice : creditNote;
    if (!document) return false;
    try {
      const pdf = await renderFamilyDocument(
        kind === 'invoice'
          ? { ...invoice, kind, paidPence: issued.paidPence }
          : {
              ...invoice,
              kind,
              reference: document.reference,
              date: document.date,
              creditedReference: invoice.reference,
              paidPence: 0,
            },
        details,
      );
      await mailer.send(
        familyDocumentMessage({
          to: invoice.billing.email,
          name: invoice.billing.name,
          kind,
          reference: document.reference,
          total: formatPounds(invoice.totalPence),
          dueDate: displayDate(invoice.dueDate),
          agencyName: details.name,
          pdf,
        }),
      );
      return true;
    } catch (error) {
      log.warn({ err: error }, `family ${kind} ${document.reference} could not be e-mailed`);
      return false;
    }
  }

  return {
    agencyDetails,

    /** Issues an invoice to a family and e-mails it (once: a retry finds it issued and sends nothing). */
    async issue(
      context: CommandContext,
      input: {
        invoiceId: string;
        clientId: string;
        billedFor: BilledFor;
        lines: FamilyInvoiceLine[];
        discountPence?: number;
        /** Whom to bill when no family is known (a public workshop booking); otherwise the family's first contact. */
        billing?: FamilyBilling;
      },
    ) {
      const { run, load, now } = context;
      const stream = familyInvoiceStream(input.invoiceId);
      const before = await load(stream, familyInvoiceDecider);
      const details = await agencyDetails(load);
      const { billing: given, ...invoice } = input;
      const family = given
        ? { billing: given }
        : await load(client.clientStream(input.clientId), familyInvoice.familyBillingView);
      if (!family)
        throw new HttpError(400, 'invalid_input', 'There is no such client.', { client: 'There is no such client' });
      const date = todayIn(timeZone, now);
      const number = await takeNumber(run, input.invoiceId);
      const issued = await run(stream, familyInvoiceDecider, {
        type: 'IssueFamilyInvoice',
        invoice: {
          ...invoice,
          reference: familyInvoice.familyInvoiceReference(details.familyInvoicePrefix, number),
          date,
          dueDate: addDays(date, details.paymentTermsDays),
          billing: family.billing,
        },
      });
      if (issued.status === 'none') throw new Error('an invoice that was just issued is missing');
      const mailed = before.status === 'none' ? await mail(issued, details, 'invoice') : false;
      return { issued, mailed };
    },

    /** Credits a whole invoice with a credit note of its own reference, and e-mails the note. */
    async credit(context: CommandContext, invoiceId: string, reason: 'changed' | 'cancelled') {
      const { run, load, now, newId } = context;
      const stream = familyInvoiceStream(invoiceId);
      const before = await load(stream, familyInvoiceDecider);
      if (before.status === 'none' || before.creditNote) return before;
      const details = await agencyDetails(load);
      const creditNoteId = newId();
      const number = await takeNumber(run, creditNoteId);
      const credited = await run(stream, familyInvoiceDecider, {
        type: 'IssueCreditNote',
        creditNoteId,
        reference: familyInvoice.creditNoteReference(details.familyInvoicePrefix, number),
        date: todayIn(timeZone, now),
        reason,
      });
      if (credited.status !== 'none') await mail(credited, details, 'credit note');
      return credited;
    },
  };
}

export type FamilyInvoicing = ReturnType<typeof familyInvoicing>;
