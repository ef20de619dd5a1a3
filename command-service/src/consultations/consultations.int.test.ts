import type { AddressInfo } from 'node:net';
import { pdfText } from '@agency/scripts/testing/pdf-text';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import { testRequests } from '@agency/scripts/testing/test-requests';
import pg from 'pg';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

type Json = Record<string, unknown>;
type Delivered = { to: string[]; raw: string };
type Row = {
  id: string;
  date: string;
  name: string;
  child: string;
  amount: number;
  assessment: boolean;
  invoiceId: string;
  invoiceReference: string;
  paid: number;
  cancelled: boolean;
  creditNoteId: string | null;
  creditNoteReference: string | null;
};

const contact = (firstName: string, lastName: string) => ({
  firstName,
  lastName,
  address: ['5 Broad Street', '', 'Oxford', ''],
  postcode: 'OX1 3AZ',
  email: `${firstName}.${lastName}@example.com`.toLowerCase(),
  phone: [{ type: 'Mobile', number: '07700 900123' }],
});

/** The PDF attached to a raw message (base64 in its own MIME part). */
function attachedPdf(raw: string): Buffer {
  const part = /Content-Type: application\/pdf[\s\S]*?\r?\n\r?\n([A-Za-z0-9+/=\r\n]+)/.exec(raw);
  if (!part) throw new Error('no PDF attached');
  return Buffer.from(part[1]!.replace(/\s/g, ''), 'base64');
}

describe('consultations and family invoices (real PostgreSQL, real SMTP on loopback)', () => {
  let product: TestProduct;
  let smtp: SMTPServer;
  let db: pg.Pool;
  let admin: string;
  let tutorToken: string;
  let partnerToken: string;
  const inbox: Delivered[] = [];
  let family: { clientId: string; childId: string };
  let otherFamily: { clientId: string; childId: string };

  const { post, ok } = testRequests(
    () => product,
    () => admin,
  );
  const get = (url: string, token = admin) =>
    fetch(`${product.url}${url}`, { headers: { authorization: `Bearer ${token}` } });
  const list = async (): Promise<Row[]> => (await (await get('/api/consultations')).json()).consultations;
  const rowOf = async (id: string) => (await list()).find((row) => row.id === id)!;
  const countEvents = async () => Number((await db.query('select count(*) from es.events')).rows[0].count);
  const newFamily = async (surname: string) => {
    const { client } = await ok('/api/clients/contact', contact('Parent', surname));
    const { child } = await ok(`/api/clients/child/${client.id}`, {
      firstName: 'Kit',
      lastName: surname,
      dob: '2014-02-03',
    });
    return { clientId: client.id as string, childId: child.id as string };
  };
  const record = (over: Json = {}, token = admin) =>
    post('/api/consultations', { client: family.clientId, child: family.childId, date: '2026-03-05', ...over }, token);
  const pdfOf = async (id: string) => {
    const response = await get(`/api/family-invoices/doc/${id}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    return pdfText(new Uint8Array(await response.arrayBuffer()));
  };

  beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          inbox.push({
            to: session.envelope.rcptTo.map((r) => r.address),
            raw: Buffer.concat(chunks).toString('utf8'),
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const { port } = smtp.server.address() as AddressInfo;
    product = await startTestProduct({ smtpUrl: `smtp://127.0.0.1:${port}` });
    db = new pg.Pool({ connectionString: product.databaseUrl });
    admin = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
    tutorToken = await product.command.signSession({ id: 'u-tutor', username: 'tt', role: 'tutor', tutorId: 't-1' });
    partnerToken = await product.command.signSession({
      id: 'u-partner',
      username: 'pp',
      role: 'partner',
      tutorId: 't-2',
    });
    family = await newFamily('Archer');
    otherFamily = await newFamily('Baker');
  });
  afterAll(async () => {
    await db?.end();
    await product?.dispose();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  });

  it('records a consultation with an assessment at the default £175, issues its invoice and e-mails the PDF', async () => {
    const answer = await ok('/api/consultations', {
      client: family.clientId,
      child: family.childId,
      date: '2026-03-05',
      assessment: true,
      assessmentDetails: { subjects: ['Maths', 'English'], tutorId: '' },
    });
    const saved = answer.consultation;
    expect(saved.id).toEqual(expect.any(String));
    expect(saved).toMatchObject({ amount: 175, assessment: true, client: family.clientId, child: family.childId });
    expect(saved.invoiceReference).toMatch(/^OTA\d{5}$/);
    expect(answer.mailed).toBe(true);

    const row = await rowOf(saved.id);
    expect(row).toMatchObject({
      date: '2026-03-05',
      name: 'Parent Archer',
      child: 'Kit Archer',
      amount: 175,
      assessment: true,
      invoiceReference: saved.invoiceReference,
      paid: 0,
      cancelled: false,
    });

    const text = await pdfOf(row.invoiceId);
    expect(text).toContain('INVOICE');
    expect(text).toContain(saved.invoiceReference);
    expect(text).toContain('Oxford Tutoring Agency Ltd');
    expect(text).toContain('Parent Archer');
    expect(text).toContain('Consultation with assessment on 05 Mar 2026');
    expect(text).toContain('£175.00');
    expect(text).toContain('Sort code 40-12-76');

    const mail = inbox.find((message) => message.raw.includes(saved.invoiceReference));
    expect(mail?.to).toEqual(['parent.archer@example.com']);
    const attached = pdfText(attachedPdf(mail!.raw));
    expect(attached).toContain(saved.invoiceReference);
    expect(attached).toContain('£175.00');
  });

  it('keeps a typed amount and lists consultations newest first, filtered by year and month', async () => {
    const { consultation } = await ok('/api/consultations', {
      client: family.clientId,
      child: family.childId,
      date: '2026-04-10',
      amount: '£120.50',
      assessment: false,
    });
    expect(consultation.amount).toBe(120.5);
    const all = await list();
    expect(all[0]?.id).toBe(consultation.id);
    const april = (await (await get('/api/consultations?year=2026&month=4')).json()).consultations as Row[];
    expect(april.map((row) => row.id)).toEqual([consultation.id]);
  });

  it('refuses a child of another family, and bad input, writing nothing', async () => {
    const before = await countEvents();
    const wrongChild = await record({ child: otherFamily.childId });
    expect(wrongChild.statusCode).toBe(400);
    expect(wrongChild.json().error.fields.child).toBeDefined();
    const bad = await post('/api/consultations', { client: '', child: '', date: '', amount: '100001' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.fields).toMatchObject({
      client: 'Client is required',
      child: 'Child is required',
      date: 'Date is required',
    });
    expect(bad.json().error.fields.amount).toMatch(/cannot be more than £100,000/);
    const subjects = await record({ assessment: true, assessmentDetails: { subjects: ['Astrology'] } });
    expect(subjects.statusCode).toBe(400);
    const assessor = await record({ assessment: true, assessmentDetails: { subjects: ['Maths'], tutorId: 'nobody' } });
    expect(assessor.statusCode).toBe(400);
    expect(assessor.json().error.fields['assessmentDetails.tutorId']).toBe('There is no such tutor');
    expect(await countEvents()).toBe(before);
  });

  it('is for admins only: tutors and partners get 403 and nothing is written', async () => {
    const before = await countEvents();
    for (const token of [tutorToken, partnerToken]) {
      expect((await record({}, token)).statusCode).toBe(403);
      expect((await get('/api/consultations', token)).status).toBe(403);
      expect(
        (await post('/api/family-invoices/payment', { invoiceId: 'x', date: '2026-03-01', amount: 1 }, token))
          .statusCode,
      ).toBe(403);
      expect((await post('/api/agency', {}, token)).statusCode).toBe(403);
    }
    expect(await countEvents()).toBe(before);
  });

  it('never repeats a reference, even for saves at the same moment', async () => {
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        ok('/api/consultations', {
          client: family.clientId,
          child: family.childId,
          date: `2026-02-${String(i + 1).padStart(2, '0')}`,
        }),
      ),
    );
    const references = (await db.query('select reference from read.family_invoices')).rows.map((r) => r.reference);
    expect(new Set(references).size).toBe(references.length);
    for (const answer of answers) expect(references).toContain(answer.consultation.invoiceReference);
  });

  it('records part and full payments, refusing more than is owed; Paid shows once anything is paid', async () => {
    const { consultation } = await ok('/api/consultations', {
      client: family.clientId,
      child: family.childId,
      date: '2026-01-15',
      amount: 100,
    });
    await ok('/api/family-invoices/payment', { invoiceId: consultation.invoiceId, date: '2026-01-20', amount: 40 });
    expect((await rowOf(consultation.id)).paid).toBe(40);
    const over = await post('/api/family-invoices/payment', {
      invoiceId: consultation.invoiceId,
      date: '2026-01-21',
      amount: 60.01,
    });
    expect(over.statusCode).toBe(409);
    const paid = await ok('/api/family-invoices/payment', {
      invoiceId: consultation.invoiceId,
      date: '2026-01-21',
      amount: '60',
    });
    expect(paid.invoice).toMatchObject({ paid: 100, outstanding: 0 });
    const unknown = await post('/api/family-invoices/payment', { invoiceId: 'nope', date: '2026-01-21', amount: 1 });
    expect(unknown.statusCode).toBe(404);
  });

  it('credits the invoice of a consultation changed after issue and issues a new one; a cancellation credits it too', async () => {
    const { consultation } = await ok('/api/consultations', {
      client: family.clientId,
      child: family.childId,
      date: '2026-03-20',
    });
    const changed = await ok('/api/consultations', {
      id: consultation.id,
      client: family.clientId,
      child: family.childId,
      date: '2026-03-20',
      amount: 200,
    });
    expect(changed.consultation.invoiceReference).not.toBe(consultation.invoiceReference);
    const row = await rowOf(consultation.id);
    expect(row).toMatchObject({ amount: 200, invoiceReference: changed.consultation.invoiceReference });
    expect(row.creditNoteReference).toMatch(/^CN-OTA\d{5}$/);
    const note = await pdfOf(row.creditNoteId!);
    expect(note).toContain('CREDIT NOTE');
    expect(note).toContain(row.creditNoteReference!);
    expect(note).toContain(consultation.invoiceReference);
    expect(note).toContain('£175.00');
    expect(await pdfOf(consultation.invoiceId)).toContain(`cancelled by credit note ${row.creditNoteReference}`);
    expect(inbox.some((message) => message.raw.includes(row.creditNoteReference!))).toBe(true);

    await ok('/api/consultations/cancel', { id: consultation.id });
    const cancelled = await rowOf(consultation.id);
    expect(cancelled.cancelled).toBe(true);
    expect(cancelled.creditNoteReference).not.toBe(row.creditNoteReference);
    const references = (
      await db.query('select reference, credit_note_reference from read.family_invoices')
    ).rows.flatMap((r) => [r.reference, r.credit_note_reference].filter(Boolean));
    expect(new Set(references).size).toBe(references.length);
  });

  it('lets an admin edit the agency’s details, which feed the next invoice, both PDFs and the notice', async () => {
    const agency = await (await get('/api/agency')).json();
    expect(agency).toMatchObject({
      name: 'Oxford Tutoring Agency Ltd',
      defaultConsultationAmount: 175,
      showBankNotice: true,
    });
    const bad = await post('/api/agency', {
      ...agency,
      sortCode: '12',
      familyInvoicePrefix: 'A B',
      paymentTermsDays: 999,
    });
    expect(bad.statusCode).toBe(400);
    expect(Object.keys(bad.json().error.fields)).toEqual(
      expect.arrayContaining(['sortCode', 'familyInvoicePrefix', 'paymentTermsDays']),
    );
    await ok('/api/agency', {
      ...agency,
      name: 'Cherwell Tutors Ltd',
      bankName: 'Isis Bank',
      familyInvoicePrefix: 'CHW',
      defaultConsultationAmount: 150,
    });
    expect(await (await get('/api/agency', tutorToken)).json()).toMatchObject({ bankName: 'Isis Bank' });
    const { consultation } = await ok('/api/consultations', {
      client: family.clientId,
      child: family.childId,
      date: '2026-03-25',
    });
    expect(consultation).toMatchObject({ amount: 150 });
    expect(consultation.invoiceReference).toMatch(/^CHW\d{5}$/);
    const text = await pdfOf(consultation.invoiceId);
    expect(text).toContain('Cherwell Tutors Ltd');
    expect(text).toContain('Isis Bank');
  });
});
