import { randomUUID } from 'node:crypto';
import type { EventStore } from '@agency/platform';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEventStore } from './event-store-choice';
import { openPersonalData, type PersonalData } from './personal-data';
import { pdfText } from './testing/pdf-text';
import { startTestProduct, TEST_ADMIN, type TestProduct } from './testing/test-product';
import { verifyProduct } from './verify-store';

describe('npm run verify: everything recomputed from the events agrees, until a read-model row is corrupted', () => {
  let product: TestProduct;
  let personalData: PersonalData;
  let store: EventStore;
  let pool: pg.Pool;
  let readDb: pg.Pool;
  /** The documents issued in the set-up: the tutor's invoice and the consultation's family invoice. */
  const issued = { tutorId: '', clientId: '', engagementId: '', tutorInvoiceId: '', familyInvoiceId: '' };

  beforeAll(async () => {
    product = await startTestProduct();
    const api = product.api(await product.login(TEST_ADMIN.username, TEST_ADMIN.password));
    const contact = (firstName: string) => ({
      firstName,
      lastName: 'Verify',
      address: ['1 Check Road'],
      postcode: 'OX1 1AA',
      email: `${firstName.toLowerCase()}.verify@example.com`,
      phone: [{ type: 'Mobile', number: '07700 900001' }],
    });
    const { tutor } = await api.post('/api/tutors/contact', {
      contact: contact('Vera'),
      tutor: { username: 'vera.verify', invoicePrefix: 'VV', startDate: '2024-09-01' },
    });
    const { client } = await api.post('/api/clients/contact', contact('Val'));
    const { child } = await api.post(`/api/clients/child/${client.id}`, {
      firstName: 'Vic',
      lastName: 'Verify',
      dob: '2014-02-02',
    });
    const { engagement } = await api.post('/api/tutors/engagement', {
      tutorId: tutor.id,
      studentId: child.id,
      rate: 32.5,
      commissionPct: 20,
      partnerPct: 15,
      startDate: '2025-01-06',
      subjects: ['Maths'],
    });
    await api.post(`/api/lessons/lesson?from=2025-02-10&to=2025-02-16&month=2025-02&tutorId=${tutor.id}`, {
      tutorId: tutor.id,
      lesson: { engagementId: engagement.id, date: '2025-02-11', duration: 1.25 },
    });
    const saved = await api.post('/api/invoices/save', { tutorId: tutor.id, year: 2025, month: 2 });
    // A consultation's family invoice, part paid.
    const { consultation } = await api.post('/api/consultations', {
      client: client.id,
      child: child.id,
      date: '2025-02-03',
    });
    await api.post('/api/family-invoices/payment', {
      invoiceId: consultation.invoiceId,
      date: '2025-02-20',
      amount: 40,
    });
    Object.assign(issued, {
      tutorId: tutor.id,
      clientId: client.id,
      engagementId: engagement.id,
      tutorInvoiceId: saved.invoice.id,
      familyInvoiceId: consultation.invoiceId,
    });
    personalData = await openPersonalData(product.dataDir, product.databaseUrl);
    store = personalData.protect(await openEventStore(undefined, product.databaseUrl));
    pool = new pg.Pool({ connectionString: product.databaseUrl });
    readDb = new pg.Pool({ connectionString: product.databaseUrl, options: '-c search_path=read' });
  });
  afterAll(async () => {
    await readDb?.end();
    await pool?.end();
    await store?.close();
    await personalData?.close();
    await product?.dispose();
  });

  it('finds no difference in a healthy product, and folds every stream (consultations and agency details too)', async () => {
    const phases = new Set<string>();
    const report = await verifyProduct(pool, readDb, store, 'Europe/London', (step) => phases.add(step.phase));
    expect(report.differences).toEqual([]);
    expect(report.invoices).toBe(1);
    expect(report.familyInvoices).toBe(1);
    expect(report.events).toBeGreaterThan(5);
    expect([...phases]).toEqual(['events', 'read models', 'invoices', 'documents']);
    const streams = await pool.query<{ stream_id: string }>('select distinct stream_id from es.events');
    const kinds = streams.rows.map((row) => row.stream_id);
    expect(kinds).toEqual(expect.arrayContaining(['agency-details', expect.stringMatching(/^consultation-/)]));
    expect(report.streams).toBe(kinds.length);
  });

  it('beside live commands: no false difference, and the commands stay visible while it compares', async () => {
    const admin = product.api(await product.login(TEST_ADMIN.username, TEST_ADMIN.password));
    let n = 0;
    const addFamily = async () => {
      n++;
      const { client, visible } = await admin.post('/api/clients/contact', {
        firstName: `Busy${n}`,
        lastName: 'Verify',
        address: ['2 Busy Road'],
        postcode: 'OX1 2BB',
        email: `busy${n}.verify@example.com`,
        phone: [{ type: 'Mobile', number: '07700 900002' }],
      });
      const child = await admin.post(`/api/clients/child/${client.id}`, {
        firstName: `Kid${n}`,
        lastName: 'Verify',
        dob: '2015-03-03',
      });
      return [visible, child.visible] as boolean[];
    };
    const answers: boolean[] = [];
    let running = true;
    const busy = (async () => {
      while (running) answers.push(...(await addFamily()));
    })();
    let duringComparison: boolean[] = [];
    try {
      const report = await verifyProduct(pool, readDb, store, 'Europe/London', undefined, {
        // While the tables are compared, a command is answered as soon as the projections have it.
        duringComparison: async () => {
          duringComparison = await addFamily();
        },
      });
      expect(report.differences).toEqual([]);
    } finally {
      running = false;
      await busy;
    }
    expect(duringComparison).toEqual([true, true]);
    expect(answers.length).toBeGreaterThan(0);
    expect(answers.every((visible) => visible)).toBe(true);
  });

  it('finds no difference after a family with children is erased (their erased dates of birth read as null)', async () => {
    const admin = product.api(await product.login(TEST_ADMIN.username, TEST_ADMIN.password));
    const { client } = await admin.post('/api/clients/contact', {
      firstName: 'Gone',
      lastName: 'Verify',
      address: ['3 Erased Road'],
      postcode: 'OX1 3CC',
      email: 'gone.verify@example.com',
      phone: [{ type: 'Mobile', number: '07700 900003' }],
    });
    for (const firstName of ['Ann', 'Ben'])
      await admin.post(`/api/clients/child/${client.id}`, { firstName, lastName: 'Verify', dob: '2016-04-04' });
    await admin.post(`/api/clients/erase/${client.id}`, { reason: 'Asked by the family', confirm: true });
    const report = await verifyProduct(pool, readDb, store, 'Europe/London');
    expect(report.differences).toEqual([]);
  });

  it('names the table whose live rows a rebuild does not reproduce', async () => {
    await pool.query('update read.invoices set earnings_pence = earnings_pence + 100');
    const report = await verifyProduct(pool, readDb, store, 'Europe/London');
    expect(report.differences).toEqual([
      'Read model table invoices: 1 live row(s) not in a rebuild, 1 rebuilt row(s) not live',
    ]);
    await pool.query('update read.invoices set earnings_pence = earnings_pence - 100');
  });

  it('checks each family invoice against its lines, payments and credit note, and names a wrong paid amount', async () => {
    await pool.query('update read.family_invoices set paid_pence = paid_pence + 500');
    const report = await verifyProduct(pool, readDb, store, 'Europe/London');
    expect(report.differences).toEqual([
      expect.stringMatching(/^Family invoice \S+: paid £45\.00 in the read model, £40\.00 by its payments$/),
      'Read model table family_invoices: 1 live row(s) not in a rebuild, 1 rebuilt row(s) not live',
    ]);
    await pool.query('update read.family_invoices set paid_pence = paid_pence - 500');
  });

  describe('issued documents (docs/documents.md)', () => {
    const pdfOf = async (url: string) => {
      const token = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
      const response = await fetch(`${product.url}${url}`, { headers: { authorization: `Bearer ${token}` } });
      expect(response.status, url).toBe(200);
      return { bytes: Buffer.from(await response.arrayBuffer()), hash: response.headers.get('x-content-hash') };
    };
    const familyPdf = () => pdfOf(`/api/family-invoices/doc/${issued.familyInvoiceId}`);
    const tutorPdf = () => pdfOf(`/api/invoices/doc/${issued.tutorInvoiceId}`);
    const records = async () =>
      (
        await pool.query<{ reference: string; kind: string; content_hash: string }>(
          'select reference, kind, content_hash from command.issued_documents order by kind',
        )
      ).rows;

    it('re-render byte for byte after the agency moves and a payment comes in; each was recorded with the hash it prints', async () => {
      const family = await familyPdf();
      const tutor = await tutorPdf();
      expect(family.bytes.toString('latin1')).toContain('%PDF-');
      await expect
        .poll(async () => (await records()).map((row) => row.kind))
        .toEqual(['family invoice', 'tutor invoice']);
      const recorded = await records();
      expect(recorded.map((row) => row.content_hash)).toEqual([family.hash, tutor.hash]);

      const admin = product.api(await product.login(TEST_ADMIN.username, TEST_ADMIN.password));
      const { retentionYears: _kept, ...details } = await admin.get('/api/agency');
      await admin.post('/api/agency', { ...details, address: ['99 Moved Street', 'Banbury'], sortCode: '11-22-33' });
      await admin.post('/api/family-invoices/payment', {
        invoiceId: issued.familyInvoiceId,
        date: '2025-02-21',
        amount: 1,
      });
      expect((await familyPdf()).bytes.equals(family.bytes)).toBe(true);
      expect((await tutorPdf()).bytes.equals(tutor.bytes)).toBe(true);

      const report = await verifyProduct(pool, readDb, store, 'Europe/London');
      expect(report.differences).toEqual([]);
      expect(report.documents).toMatchObject({ compared: 2, rendered: 2, erased: 0, unrecorded: 0 });
    });

    it('reports a stored hash that differs from what the document prints', async () => {
      const [family] = await records();
      await pool.query(
        "update command.issued_documents set content_hash = '000000000000' where kind = 'family invoice'",
      );
      const report = await verifyProduct(pool, readDb, store, 'Europe/London');
      expect(report.differences).toEqual([
        `Family invoice ${family!.reference}: prints content hash ${family!.content_hash} when rendered again, 000000000000 when it was issued`,
      ]);
      await pool.query('update command.issued_documents set content_hash = $1 where kind = $2', [
        family!.content_hash,
        'family invoice',
      ]);
      const tutorRecord =
        "update command.issued_documents set pdf_sha256 = $1 where kind = 'tutor invoice' returning (select pdf_sha256 from command.issued_documents where kind = 'tutor invoice') as was";
      const { was } = (await pool.query<{ was: string }>(tutorRecord, ['ff'])).rows[0]!;
      const bytes = await verifyProduct(pool, readDb, store, 'Europe/London');
      expect(bytes.differences).toEqual([
        expect.stringMatching(/^Invoice VV\d+: renders to other bytes than when it was issued/),
      ]);
      await pool.query(tutorRecord, [was]);
    });

    it("once the tutor is erased, the invoice re-renders with 'Erased' for the tutor's details and verify accepts it; the family's erasure leaves its invoice as it was (its accounting copy)", async () => {
      const before = await tutorPdf();
      const familyBefore = await familyPdf();
      const admin = product.api(await product.login(TEST_ADMIN.username, TEST_ADMIN.password));
      await admin.post('/api/tutors/engagement', {
        id: issued.engagementId,
        tutorId: issued.tutorId,
        rate: 32.5,
        commissionPct: 20,
        partnerPct: 15,
        startDate: '2025-01-06',
        endDate: '2025-03-31',
        change: 'termination',
      });
      // The engagement leaves the tutor's roster by its reactor: the termination is refused, writing nothing, until then.
      const token = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
      const terminate = () =>
        product.command.app.inject({
          method: 'POST',
          url: `/api/tutors/active/${issued.tutorId}`,
          payload: { commandId: randomUUID(), active: false, endDate: '2025-03-31' },
          headers: { authorization: `Bearer ${token}` },
        });
      await expect.poll(async () => (await terminate()).statusCode, { timeout: 60_000 }).toBe(200);
      await admin.post(`/api/tutors/erase/${issued.tutorId}`, { reason: 'Asked by the tutor', confirm: true });
      const after = await tutorPdf();
      expect(after.hash).not.toBe(before.hash);
      const text = pdfText(after.bytes);
      expect(text).toContain('Erased');
      expect(text).not.toContain('Vera');
      expect(text).toContain(`Document check: ${after.hash}`);
      // The family's billing details are kept for the retention period after its erasure (docs/personal-data.md).
      await admin.post(`/api/clients/erase/${issued.clientId}`, { reason: 'Asked by the family', confirm: true });
      expect((await familyPdf()).bytes.equals(familyBefore.bytes)).toBe(true);
      const report = await verifyProduct(pool, readDb, store, 'Europe/London');
      expect(report.differences).toEqual([]);
      expect(report.documents).toMatchObject({ compared: 2, erased: 1 });
    });
  });
});
