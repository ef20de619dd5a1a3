import { randomUUID } from 'node:crypto';
import { useProductWithFaults } from '@agency/scripts/testing/product-with-faults';
import { reactorsSettled } from '@agency/scripts/testing/reactors-settled';
import type { TestProduct } from '@agency/scripts/testing/test-product';
import { testRequests } from '@agency/scripts/testing/test-requests';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { type FaultStep, injectFaults } from '../race-points';

const contact = (firstName: string, lastName: string) => ({
  firstName,
  lastName,
  address: ['5 Broad Street', '', 'Oxford', ''],
  postcode: 'OX1 3AZ',
  email: `${randomUUID()}@example.com`,
  phone: [{ type: 'Mobile', number: '07700 900123' }],
});

/**
 * A consultation is recorded on its own stream; its family invoices and credit notes follow from
 * its events (the consultations reactor). Whatever fails between the two, the documents end as
 * one clean run would leave them.
 */
describe('consultation invoices are a reactor: never refused after a write, never lost, never doubled (real PostgreSQL)', () => {
  let product: TestProduct;
  let db: pg.Pool;
  let admin: string;

  // A retry names its command: `{ ...body, commandId }` (the helper's own id is then replaced).
  const { post, ok } = testRequests(
    () => product,
    () => admin,
  );
  const newFamily = async (firstName = 'Parent', lastName = 'Archer') => {
    const { client } = await ok('/api/clients/contact', contact(firstName, lastName));
    const { child } = await ok(`/api/clients/child/${client.id}`, {
      firstName: 'Kit',
      lastName: 'Archer',
      dob: '2014-02-03',
    });
    return { client: client.id as string, child: child.id as string };
  };
  const documents = async (type: 'FamilyInvoiceIssued' | 'FamilyCreditNoteIssued', invoiceId: string) =>
    (
      await db.query('select data->>$1 as reference from es.events where stream_id = $2 and event_type = $3', [
        'reference',
        `family-invoice-${invoiceId}`,
        type,
      ])
    ).rows.map((row) => row.reference as string);
  const invoicesOf = async (consultationId: string) =>
    (
      await db.query(
        `select distinct data->>'invoiceId' as id from es.events
          where stream_id = $1 and event_type in ('ConsultationRecorded', 'ConsultationChanged')`,
        [`consultation-${consultationId}`],
      )
    ).rows.map((row) => row.id as string);

  useProductWithFaults((started) => {
    ({ product, db, admin } = started);
  });

  it('a family whose names are 120 and 100 characters long is invoiced: nothing the invoice needs can refuse it after the consultation is recorded', async () => {
    const family = await newFamily('F'.repeat(120), 'L'.repeat(100));
    const { consultation } = await ok('/api/consultations', { ...family, date: '2026-03-05' });
    expect(consultation.invoiceReference).toMatch(/\d{5}$/);
    expect(await documents('FamilyInvoiceIssued', consultation.invoiceId)).toHaveLength(1);
  });

  it('a record that died after its append is invoiced all the same, and its retry answers with the invoice', async () => {
    const family = await newFamily();
    const commandId = randomUUID();
    injectFaults({
      at: (fault: FaultStep) => {
        if (fault.step === 'appended' && fault.commandId === commandId) throw new Error('the process died here');
      },
    });
    const body = { ...family, date: '2026-03-06' };
    expect((await post('/api/consultations', { ...body, commandId })).statusCode).toBe(500);
    injectFaults(undefined);
    const { consultation } = await ok('/api/consultations', { ...body, commandId });
    expect(consultation.invoiceReference).toMatch(/\d{5}$/);
    expect(await documents('FamilyInvoiceIssued', consultation.invoiceId)).toEqual([consultation.invoiceReference]);
  });

  it('a consultation cancelled before its invoice was issued is never invoiced, even by a retry of its record', async () => {
    const family = await newFamily();
    const commandId = randomUUID();
    const body = { ...family, date: '2026-03-07' };
    // The reactor is held back (its step fails) until the consultation is cancelled.
    let held = true;
    injectFaults({
      at: (fault: FaultStep) => {
        if (held && fault.step === 'appended' && fault.streamId === 'family-invoice-sequence') {
          throw new Error('the reactor is down');
        }
      },
    });
    const recorded = await ok('/api/consultations', { ...body, commandId });
    const consultationId = recorded.consultation.id as string;
    await ok('/api/consultations/cancel', { id: consultationId });
    held = false;
    // The retry of the record (same id) after the cancellation: no invoice for a cancelled consultation.
    const retried = await ok('/api/consultations', { ...body, commandId });
    expect(retried.consultation.cancelled).toBe(false);
    await reactorsSettled(db);
    const [invoiceId] = await invoicesOf(consultationId);
    const issued = await documents('FamilyInvoiceIssued', invoiceId!);
    const credited = await documents('FamilyCreditNoteIssued', invoiceId!);
    // Either never issued, or issued and credited: never owed.
    expect(issued.length === 0 || credited.length === 1).toBe(true);
  });

  it('a change and a cancel whose crediting steps crash between number and note leave one credit note per invoice, each with its own reference', async () => {
    const family = await newFamily();
    const first = await ok('/api/consultations', { ...family, date: '2026-03-08', amount: 100 });
    const id = first.consultation.id as string;
    let crashes = 0;
    injectFaults({
      at: (fault: FaultStep) => {
        if (fault.step === 'appended' && fault.streamId === 'family-invoice-sequence' && crashes++ % 2 === 0) {
          throw new Error('the reactor died here');
        }
      },
    });
    await ok('/api/consultations', { ...family, id, date: '2026-03-08', amount: 120 });
    await ok('/api/consultations/cancel', { id });
    const invoiceIds = await invoicesOf(id);
    expect(invoiceIds).toHaveLength(2);
    await reactorsSettled(db);
    // The first invoice was issued before any crash; the second may never be (the cancel can
    // overtake the change's reaction, and a cancelled consultation is not invoiced): each invoice
    // issued is credited exactly once, and no credit note shares a reference.
    const references: string[] = [];
    for (const invoiceId of invoiceIds) {
      const issued = await documents('FamilyInvoiceIssued', invoiceId);
      const credited = await documents('FamilyCreditNoteIssued', invoiceId);
      expect(credited).toHaveLength(issued.length);
      references.push(...credited);
    }
    expect(await documents('FamilyCreditNoteIssued', first.consultation.invoiceId)).toHaveLength(1);
    expect(new Set(references).size).toBe(references.length);
    expect(crashes).toBeGreaterThan(0);
  });
});
