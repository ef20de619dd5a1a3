import { familyPaymentBody } from '@agency/contracts';
import { familyInvoice, toPence, toPounds } from '@agency/domain';
import { notFound } from '@agency/platform';
import type { FastifyInstance } from 'fastify';
import { type CommandDependencies, commandRoute } from '../pipeline/command-pipeline';

/** `POST /api/family-invoices/payment`: an admin records money a family paid (part payments too). */
export async function familyInvoiceRoutes(app: FastifyInstance, { deps }: { deps: CommandDependencies }) {
  const { familyInvoiceDecider, familyInvoiceStream } = familyInvoice;
  commandRoute(app, deps, {
    url: '/api/family-invoices/payment',
    roles: ['admin'],
    body: familyPaymentBody,
    handle: async ({ body }, { run, load, user, newId }) => {
      const stream = familyInvoiceStream(body.invoiceId);
      if ((await load(stream, familyInvoiceDecider)).status === 'none') throw notFound('There is no such invoice.');
      const paid = await run(stream, familyInvoiceDecider, {
        type: 'RecordFamilyPayment',
        paymentId: newId(),
        date: body.date,
        amountPence: toPence(body.amount, 'Amount'),
        actor: { role: user.role, tutorId: user.tutorId },
      });
      if (paid.status === 'none') throw notFound('There is no such invoice.');
      return {
        invoice: {
          id: paid.invoice.invoiceId,
          reference: paid.invoice.reference,
          total: toPounds(paid.invoice.totalPence),
          paid: toPounds(paid.paidPence),
          outstanding: toPounds(familyInvoice.outstandingOf(paid)),
          credited: paid.creditNote !== null,
        },
      };
    },
  });
}
