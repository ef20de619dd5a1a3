import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { engagement, timesheet } from '@agency/domain';
import type { EventStore } from '@agency/platform';
import { migrate } from '@agency/platform/migrations';
import type { PersonalDataVault } from '@agency/platform/personal-data';
import type { Sessions } from '@agency/platform/sessions';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { agencyRoutes, seedAgencyDetails } from './agency/agency-routes';
import { Accounts } from './auth/accounts';
import { tutorLoginReactor } from './auth/activation-reactor';
import { activationRoutes } from './auth/activation-routes';
import { authRoutes } from './auth/auth-routes';
import { type LoginLimits, LoginThrottle } from './auth/login-throttle';
import { passwordResetRoutes } from './auth/password-reset-routes';
import { type ResetLimits, ResetThrottle } from './auth/reset-throttle';
import { sessionRoutes } from './auth/session-routes';
import { userRoutes } from './auth/user-routes';
import { clientRoutes } from './clients/client-routes';
import { consultationReactor } from './consultations/consultation-reactor';
import { consultationRoutes } from './consultations/consultation-routes';
import { documentRecordReactor } from './documents/document-record-reactor';
import { engagementEndReactor } from './engagements/engagement-end-reactor';
import { engagementRoutes } from './engagements/engagement-routes';
import { engagementStartReactor } from './engagements/engagement-start-reactor';
import { erasureReactor } from './erasure/erasure-reactor';
import { erasureRoutes } from './erasure/erasure-routes';
import { familyInvoiceRoutes } from './family-invoices/family-invoice-routes';
import { familyInvoicing } from './family-invoices/family-invoicing';
import { lessonBillingReactor, lessonBillingRoutes } from './family-invoices/lesson-billing';
import { familyEmailChangeReactor } from './family-portal/family-email-change-reactor';
import { familyPortal } from './family-portal/family-portal';
import { importRoutes } from './import/import-routes';
import { invoiceReactor } from './invoices/invoice-reactor';
import { invoiceRoutes } from './invoices/invoice-routes';
import { lessonRepricingReactor } from './lessons/lesson-repricing-reactor';
import { lessonRoutes } from './lessons/lesson-routes';
import { ErasedMail, refuseErasedRecipients } from './mail/erased-recipients';
import { mailReactor } from './mail/mail-reactor';
import { createMailer, type Mailer } from './mail/mailer';
import { moneyModelRoutes } from './money-model/money-model-routes';
import { payRunReactor } from './pay-runs/pay-run-reactor';
import { payRunRoutes } from './pay-runs/pay-run-routes';
import { payStatementReactor } from './pay-statements/pay-statement-reactor';
import { payStatementRoutes } from './pay-statements/pay-statement-routes';
import { type CommandDependencies, createCommandContext } from './pipeline/command-pipeline';
import { ProcessedCommands } from './pipeline/idempotency';
import { ProjectionWatch } from './pipeline/projection-watch';
import { StreamStates } from './pipeline/stream-states';
import type { Views } from './pipeline/views';
import type { Reactor } from './reactors/reactor';
import { type ReactorBackoff, ReactorRunner } from './reactors/reactor-runner';
import { ReactorWatch } from './reactors/reactor-watch';
import { lateFeeReactor } from './reminders/late-fee-reactor';
import { familyInvoiceReminders } from './reminders/reminder-chore';
import { reminderRoutes } from './reminders/reminder-routes';
import { commandDataMigrations, migrateCommandSide } from './schema';
import { TutorNames } from './tutors/tutor-names';
import { tutorRoutes } from './tutors/tutor-routes';
import { bookingLapses } from './workshops/booking-lapses';
import { bookingLinks } from './workshops/booking-links';
import { workshopLookups } from './workshops/workshop-lookups';
import { workshopReactor } from './workshops/workshop-reactor';
import { workshopRoutes } from './workshops/workshop-routes';

export type CommandAppOptions = {
  /** The app's pool (the command side's tables, sessions, idempotency, reactors). */
  db: pg.Pool;
  /** For the connections that LISTEN (the outbox of erased recipients). */
  databaseUrl: string;
  store: EventStore;
  /** The app's one set of sessions, checked by its shell: logins start them, logouts end them. */
  sessions: Sessions;
  /** The query side's views commands answer with, called in this process. */
  views: Views;
  timeZone?: string;
  clock?: () => Date;
  loginLimits?: LoginLimits;
  /** Outgoing mail; by default .eml files in `outboxDir` (or the system temp folder). */
  mailer?: Mailer;
  outboxDir?: string;
  /** Where links in e-mails point, e.g. https://agency.example.com. */
  publicUrl?: string;
  resetLimits?: ResetLimits;
  /** The data subjects' keys: with it, families and tutors who have left can be erased. */
  personalData?: PersonalDataVault;
  /** How long a reactor stopped at an event waits before it tries again (1 s doubling to 60 s by default). */
  reactorBackoff?: ReactorBackoff;
};

/**
 * The command side, as a plugin tree registered on `app` (an encapsulated context of the app's
 * one instance, whose shell checks sessions and describes routes): auth, the command routes, the
 * pipeline, the reactors and mail. Answers what scripts and start-up need of it.
 */
export async function commandTree(app: FastifyInstance, options: CommandAppOptions) {
  const { db } = options;
  // Its tables, by their numbered migrations (docs/migrations.md).
  await migrateCommandSide(db);
  const { sessions } = options;
  const projections = new ProjectionWatch(db);
  await projections.start();
  const reactions = new ReactorWatch(db);
  await reactions.start();
  const deps: CommandDependencies = {
    store: options.store,
    // Kept answers are sealed under their subjects' keys (docs/command-ids.md).
    processed: new ProcessedCommands(db, { vault: options.personalData }),
    projections,
    // A tutor's month of lessons (and the engagement each save prices from) is long: kept folded.
    states: new StreamStates([timesheet.timesheetDecider, engagement.engagementDecider]),
    clock: options.clock ?? (() => new Date()),
    views: options.views,
    reactions,
  };
  await deps.processed.forgetClearAnswers();
  // What follows from events (credits, family invoices, moves, e-mails): registered before this
  // start records anything, so a new store's reactors begin at its first event.
  const reactorList: Reactor[] = [];
  // An engagement is recorded after its start on the roster, and taken off the roster after its end.
  reactorList.push(engagementStartReactor, engagementEndReactor);
  const reactors = new ReactorRunner(db, options.store, deps, reactorList, {
    log: (message, error) => app.log.warn({ err: error }, message),
    backoff: options.reactorBackoff,
  });
  // Data migrations, once per store (e.g. engagements started before tutors kept a roster put on it).
  await migrate(db, commandDataMigrations(deps));
  // The agency's own details are events: the first start of a store records them as they shipped.
  await seedAgencyDetails(deps);
  const accounts = new Accounts(db);
  app.addHook('onClose', async () => {
    await reactors.stop();
    await reactions.stop();
    await projections.stop();
  });

  await app.register(authRoutes, {
    accounts,
    sessions,
    throttle: new LoginThrottle(db, options.loginLimits),
    timeZone: options.timeZone ?? 'Europe/London',
  });
  await app.register(userRoutes, { deps, accounts });
  await app.register(sessionRoutes, { deps, db, sessions });
  const timeZone = options.timeZone ?? 'Europe/London';
  const publicUrl = options.publicUrl ?? 'http://localhost:3000';
  const outboxDir = options.outboxDir ?? join(tmpdir(), 'agency-outbox');
  // No route can mail an erased subject: its address reads "Erased", which is refused here.
  const mailer = refuseErasedRecipients(
    options.mailer ??
      createMailer({ outboxDir, from: 'Tutoring Agency <no-reply@localhost>', log: (line) => app.log.info(line) }),
  );
  await app.register(activationRoutes, { accounts, db, deps });
  // A tutor's activation is followed by their login's own stream.
  reactorList.push(tutorLoginReactor({ store: options.store }));
  await app.register(passwordResetRoutes, {
    accounts,
    db,
    deps,
    throttle: new ResetThrottle(db, 'reset', options.resetLimits),
  });
  await app.register(clientRoutes, { deps, db, timeZone });
  await app.register(tutorRoutes, { deps, db, names: new TutorNames(db), timeZone });
  await app.register(engagementRoutes, { deps, db, timeZone });
  await app.register(importRoutes, { deps, db, names: new TutorNames(db), timeZone });
  await app.register(lessonRoutes, { deps });
  // A change of an engagement's terms is followed by its lessons repriced, month by month.
  reactorList.push(lessonRepricingReactor({ db, timeZone }));
  await app.register(invoiceRoutes, { deps, timeZone });
  // A month's lock is followed by its invoice, an invoice's withdrawal by its month's unlock.
  reactorList.push(invoiceReactor({ store: options.store, db, timeZone }));
  if (options.personalData) {
    const vault = options.personalData;
    // Each instance has its own outbox: every one deletes its mail to a subject erased through any.
    const outbox = await ErasedMail.open({
      db,
      outboxDir,
      digest: (address) => vault.digest('outbox-recipient', address),
    });
    const stopFollowing = await outbox.follow(options.databaseUrl, (message, error) =>
      app.log.warn({ err: error }, message),
    );
    // Before the pool is ended (onClose hooks run last added, first).
    app.addHook('onClose', stopFollowing);
    await app.register(erasureRoutes, { deps, db, vault, outbox });
    // An erasure cut short after its event (its key not yet destroyed) is completed from the event.
    reactorList.push(await erasureReactor({ deps, db, vault, outbox }));
  }
  await app.register(agencyRoutes, { deps });
  const invoicing = familyInvoicing({ timeZone });
  await app.register(consultationRoutes, { deps, invoicing });
  await app.register(familyInvoiceRoutes, { deps });
  await app.register(familyPortal, { db, deps, sessions, timeZone, publicUrl });
  // A family's new e-mail address, once an admin confirms it, becomes its contact's.
  reactorList.push(familyEmailChangeReactor);
  await app.register(workshopRoutes, { deps, invoicing, db, timeZone, vault: options.personalData });
  // Public bookings nobody confirmed lapse when their hold runs out (docs/limits.md, "Public bookings").
  const lapseDueBookings = bookingLapses({ deps, links: bookingLinks(db), timeZone, vault: options.personalData });
  reactors.addChore({ name: 'booking lapses', everyMs: 30_000, run: lapseDueBookings });
  // Overdue family invoices get their reminders, each step once (docs/reminders.md); a fee follows on its own invoice.
  await app.register(reminderRoutes, { deps });
  const sendReminders = familyInvoiceReminders({ deps, db, timeZone });
  reactors.addChore({ name: 'family invoice reminders', everyMs: 60_000, run: sendReminders });
  // Settings → Money model and an engagement's own (docs/money-models.md).
  await app.register(moneyModelRoutes, { deps, timeZone });
  reactorList.push(lateFeeReactor({ store: options.store, invoicing }));
  // A month's lessons billed: each family's lessons invoice follows, once (docs/money-models.md).
  await app.register(lessonBillingRoutes, { deps, timeZone, db });
  reactorList.push(lessonBillingReactor({ db, invoicing }));
  // A month's pay statements prepared is followed by each tutor's statement (docs/money-models.md).
  await app.register(payStatementRoutes, { deps, db, timeZone });
  reactorList.push(payStatementReactor(db));
  // Tutors' bank details and pay runs; a run marked paid is followed by its payments on the statements.
  await app.register(payRunRoutes, { deps, db, timeZone });
  reactorList.push(payRunReactor);
  reactorList.push(
    consultationReactor(invoicing),
    workshopReactor({ store: options.store, invoicing, lookups: workshopLookups(db) }),
  );
  /** For start-up and scripts: act as a given user outside an HTTP request. */
  const actAs = (user: Parameters<typeof createCommandContext>[1], commandId: string) =>
    createCommandContext(deps, user, commandId, commandId);
  /** For scripts and tests: a token in a new session of this user, as a login would give. */
  const signSession = async (user: Parameters<typeof createCommandContext>[1]) =>
    app.jwt.sign({ ...user, sid: await sessions.start(user.id) });
  // Each issued document's content hash and bytes as first rendered, for `npm run verify` (docs/documents.md).
  reactorList.push(await documentRecordReactor({ db, store: options.store }));
  reactorList.push(mailReactor({ db, store: options.store, mailer, publicUrl, log: app.log }));
  await reactors.register();
  return { accounts, deps, actAs, sessions, signSession, reactors, chores: { lapseDueBookings, sendReminders } };
}
