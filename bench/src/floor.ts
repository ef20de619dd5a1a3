import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { compressAnswer } from '@agency/projection-service/answer-compression';
import pg from 'pg';

/**
 * The floor the product is measured against, in a process of its own (forked by bench.ts): a bare
 * `node:http` server (no framework, no sign-in, no schema validation, no logging) on the same
 * database. `GET /read/<name>` runs the SQL the product ran for that view (captured from it, same
 * values) and answers the rows as JSON; `POST /save` does the minimum a durable save that reads
 * its own writes must do: one statement (one transaction) appends the event and upserts the lesson
 * row, then the week is read back with the product's own SQL for the week's grid. Answers of
 * `compressedFrom` bytes and more are compressed by the product's own `compressAnswer` (brotli 4 or
 * gzip 4, when accepted, in line or in the thread pool as the product chooses), so the ratio is the product's own cost and not its choice to send fewer bytes.
 */
export type Statement = { text: string; values: unknown[] };
export type FloorEngagement = { studentId: string; ratePence: number; commissionBp: number; partnerBp: number };
export type FloorSetup = {
  databaseUrl: string;
  /** The product's statements for each view, by name. */
  reads: Record<string, Statement[]>;
  /** The product's statements for the week's grid of each writer's tutor (their `lessons` is the floor's). */
  weeks: Record<string, Statement[]>;
  engagements: Record<string, FloorEngagement>;
  /** The floor's own tables: events shaped as es.events, lessons as read.lessons. */
  schema: string;
  /** Answers of this many bytes and more are compressed, as the product's are. */
  compressedFrom: number;
};

async function answer(
  request: http.IncomingMessage,
  response: http.ServerResponse,
  value: unknown,
  compressedFrom: number,
) {
  const body = Buffer.from(JSON.stringify(value));
  const accepted = String(request.headers['accept-encoding'] ?? '');
  const encoding =
    body.length < compressedFrom ? undefined : (['br', 'gzip'] as const).find((name) => accepted.includes(name));
  const sent = encoding ? await compressAnswer(body, encoding) : body;
  response.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': sent.length,
    ...(encoding ? { 'content-encoding': encoding } : {}),
  });
  response.end(sent);
}

const run = (db: pg.Pool, statements: Statement[]) =>
  Promise.all(statements.map(async ({ text, values }) => (await db.query(text, values)).rows));

function floorServer(setup: FloorSetup) {
  // As many connections as the product's query side has.
  const reads = new pg.Pool({ connectionString: setup.databaseUrl, max: 10, options: '-c search_path=read' });
  const saves = new pg.Pool({
    connectionString: setup.databaseUrl,
    max: 10,
    options: `-c search_path=${setup.schema},read`,
  });
  const SAVE = `with appended as (
      insert into ${setup.schema}.events (stream_id, stream_revision, event_id, event_type, data, metadata)
      select $1::text, coalesce(max(stream_revision), -1) + 1, $2::uuid, 'LessonSaved', $3::jsonb, $4::jsonb
        from ${setup.schema}.events where stream_id = $1::text
      returning global_position, recorded_at
    )
    insert into lessons (id, tutor_id, month, engagement_id, student_id, date, duration_hundredths, rate_pence,
                         amount_pence, amount_edited, commission_bp, commission_pence, partner_bp,
                         partner_commission_pence, valid_from_commit, valid_from_prepare, recorded_at)
    select $5, $6, $7, $8, $9, $10::date, $11, $12, $13, false, $14, $15, $16, $17,
           global_position, global_position, recorded_at from appended
    on conflict (id) do update set duration_hundredths = excluded.duration_hundredths,
      amount_pence = excluded.amount_pence, commission_pence = excluded.commission_pence,
      partner_commission_pence = excluded.partner_commission_pence, valid_from_commit = excluded.valid_from_commit,
      valid_from_prepare = excluded.valid_from_prepare, recorded_at = excluded.recorded_at`;

  async function save(body: {
    tutorId: string;
    commandId: string;
    lesson: { id?: string; engagementId: string; date: string; duration: number };
  }) {
    const { tutorId, lesson } = body;
    const terms = setup.engagements[lesson.engagementId];
    const week = setup.weeks[tutorId];
    if (!terms || !week) throw new Error(`no engagement ${lesson.engagementId} of tutor ${tutorId} in the floor`);
    const month = lesson.date.slice(0, 7);
    const id = lesson.id ?? `${lesson.engagementId}:${lesson.date}`;
    const hundredths = Math.round(lesson.duration * 100);
    const amountPence = Math.round((terms.ratePence * hundredths) / 100);
    const commissionPence = Math.round((amountPence * terms.commissionBp) / 10_000);
    const partnerPence = Math.round((amountPence * terms.partnerBp) / 10_000);
    const data = {
      tutorId,
      month,
      lessonId: id,
      engagementId: lesson.engagementId,
      studentId: terms.studentId,
      date: lesson.date,
      duration: hundredths,
      ratePence: terms.ratePence,
      amountPence,
      commissionBp: terms.commissionBp,
      commissionPence,
      partnerBp: terms.partnerBp,
      partnerCommissionPence: partnerPence,
    };
    const metadata = { userId: 'floor', role: 'admin', commandId: body.commandId, correlationId: body.commandId };
    await saves.query(SAVE, [
      `timesheet-${tutorId}-${month}`,
      randomUUID(),
      data,
      metadata,
      id,
      tutorId,
      month,
      lesson.engagementId,
      terms.studentId,
      lesson.date,
      hundredths,
      terms.ratePence,
      amountPence,
      terms.commissionBp,
      commissionPence,
      terms.partnerBp,
      partnerPence,
    ]);
    // Read back after the commit, as the product answers once the save is visible.
    return { lesson: { id, date: lesson.date, duration: lesson.duration }, week: await run(saves, week) };
  }

  const server = http.createServer((request, response) => {
    const fail = (error: unknown) => {
      response.writeHead(500, { 'content-type': 'text/plain' });
      response.end(String(error));
    };
    if (request.method === 'GET' && request.url?.startsWith('/read/')) {
      const statements = setup.reads[request.url.slice('/read/'.length)];
      if (!statements) return fail(`no view ${request.url}`);
      run(reads, statements)
        .then((rows) => answer(request, response, rows, setup.compressedFrom))
        .catch(fail);
      return;
    }
    if (request.method === 'POST' && request.url === '/save') {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        save(JSON.parse(Buffer.concat(chunks).toString()))
          .then((saved) => answer(request, response, saved, setup.compressedFrom))
          .catch(fail);
      });
      return;
    }
    fail(`no route ${request.method} ${request.url}`);
  });
  return {
    server,
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      await Promise.all([reads.end(), saves.end()]);
    },
  };
}

process.once('message', (setup: FloorSetup) => {
  const floor = floorServer(setup);
  floor.server.keepAliveTimeout = 60_000;
  floor.server.listen(0, '127.0.0.1', () => {
    const address = floor.server.address();
    process.send?.({ port: typeof address === 'object' && address ? address.port : 0 });
  });
  process.on('disconnect', () => {
    void floor.close().finally(() => process.exit(0));
  });
});
