import type { BilledFor, FamilyBilling, FamilyInvoiceLine, TutorBilledLesson } from '@agency/contracts';
import { addDays, agency, client, familyInvoice, todayIn } from '@agency/domain';
import { HttpError } from '@agency/platform';
import { type CommandContext, derivedId } from '../pipeline/command-pipeline';

/**
 * A credit note's id: one per invoice (an invoice is credited once, as a whole), so however often
 * a crediting step runs, it names the same note and takes the same number.
 */
export const creditNoteIdOf = (invoiceId: string) => derivedId('credit-note', invoiceId);

/**
 * Family invoices as the reactors issue them: the agency-wide reference (a number of the sequence
 * stream taken for the document's own id, so a re-run gets its number back), the family's billing
 * details and the agency's terms from their own streams (never a read model that may lag). The
 * PDFs are e-mailed by the mail reactor, from the events.
 */
export function familyInvoicing({ timeZone }: { timeZone: string }) {
  const { familyInvoiceDecider, familyInvoiceStream, sequenceDecider, sequenceStream } = familyInvoice;

  const agencyDetails = async (load: CommandContext['load']) =>
    agency.detailsOf(await load(agency.agencyStream(), agency.agencyDecider));

  async function takeNumber(run: CommandContext['run'], documentId: string): Promise<number> {
    // Every save of a busy office that issues a document takes its number here: a contended stream.
    const state = await run(sequenceStream(), sequenceDecider, { type: 'TakeNumber', documentId }, 'contended');
    const number = state.numbers.get(documentId);
    if (number === undefined) throw new Error('a number that was just taken is missing');
    return number;
  }

  /** Whom a family's invoices are addressed to now (its first contact); null: no such family. */
  async function billingOf(load: CommandContext['load'], clientId: string): Promise<FamilyBilling | null> {
    return (await load(client.clientStream(clientId), familyInvoice.familyBillingView))?.billing ?? null;
  }

  return {
    agencyDetails,
    billingOf,

    /** Issues an invoice to a family (once: a re-run finds it issued and changes nothing). */
    async issue(
      context: CommandContext,
      input: {
        invoiceId: string;
        clientId: string;
        billedFor: BilledFor;
        lines: FamilyInvoiceLine[];
        discountPence?: number;
        /** A lessons invoice: what tutors billed for introduction lessons, and the names its lines name. */
        tutorBilled?: TutorBilledLesson[];
        names?: { id: string; name: string }[];
        /** Whom to bill when no family is known (a public workshop booking); otherwise the family's first contact. */
        billing?: FamilyBilling;
      },
    ) {
      const { run, load, now } = context;
      const stream = familyInvoiceStream(input.invoiceId);
      const before = await load(stream, familyInvoiceDecider);
      if (before.status !== 'none') return before;
      const details = await agencyDetails(load);
      const { billing: given, ...invoice } = input;
      const billing = given ?? (await billingOf(load, input.clientId));
      if (!billing) {
        throw new HttpError(400, 'invalid_input', 'There is no such client.', { client: 'There is no such client' });
      }
      const date = todayIn(timeZone, now);
      const number = await takeNumber(run, input.invoiceId);
      const issued = await run(stream, familyInvoiceDecider, {
        type: 'IssueFamilyInvoice',
        invoice: {
          ...invoice,
          reference: familyInvoice.familyInvoiceReference(details.familyInvoicePrefix, number),
          date,
          dueDate: addDays(date, details.paymentTermsDays),
          billing,
        },
      });
      if (issued.status === 'none') throw new Error('an invoice that was just issued is missing');
      return issued;
    },

    /** Credits a whole invoice with a credit note of its own reference (once; nothing for an invoice never issued). */
    async credit(context: CommandContext, invoiceId: string, reason: 'changed' | 'cancelled') {
      const { run, load, now } = context;
      const stream = familyInvoiceStream(invoiceId);
      const before = await load(stream, familyInvoiceDecider);
      if (before.status === 'none' || before.creditNote) return before;
      const details = await agencyDetails(load);
      const creditNoteId = creditNoteIdOf(invoiceId);
      const number = await takeNumber(run, creditNoteId);
      return run(stream, familyInvoiceDecider, {
        type: 'IssueCreditNote',
        creditNoteId,
        reference: familyInvoice.creditNoteReference(details.familyInvoicePrefix, number),
        date: todayIn(timeZone, now),
        reason,
      });
    },
  };
}

export type FamilyInvoicing = ReturnType<typeof familyInvoicing>;
