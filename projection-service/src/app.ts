import {
  fieldVisibility,
  installErrorReplies,
  refuseNulCharacters,
  serverLimits,
  sessionToken,
} from '@agency/platform';
import Fastify, { type FastifyServerOptions } from 'fastify';
import pg from 'pg';
import { healthQueries } from './queries/health-queries';
import { clientsQueries } from './read-models/clients/queries';
import { engagementQueries } from './read-models/engagements/queries';
import { invoiceQueries } from './read-models/invoices/queries';
import { lessonQueries } from './read-models/lessons/queries';
import { tutorsQueries } from './read-models/tutors/queries';
import { usersQueries } from './read-models/users/queries';

export type QueryAppOptions = {
  databaseUrl: string;
  jwtSecret: string;
  /** The agency's time zone: what "today" is when a tutor's current students are decided. */
  timeZone?: string;
  clock?: () => Date;
  logger?: FastifyServerOptions['logger'];
};

/**
 * The query side: GET /api/* answered from the read models in schema `read`. It verifies the
 * session token itself rather than trusting the front door.
 */
export async function buildQueryApp(options: QueryAppOptions) {
  const app = Fastify({ logger: options.logger ?? false, ...serverLimits });
  // Every query reads the live schema by name, so a rebuild's swap is picked up at once.
  const db = new pg.Pool({ connectionString: options.databaseUrl, max: 10, options: '-c search_path=read' });
  db.on('error', (error) => app.log.warn({ err: error }, 'idle database connection lost'));
  app.addHook('onClose', () => db.end());
  installErrorReplies(app);
  refuseNulCharacters(app);
  await app.register(sessionToken, { secret: options.jwtSecret });
  // Before the routes: every answer passes the one rule of which fields the caller's role may see.
  await app.register(fieldVisibility);
  const today = { timeZone: options.timeZone ?? 'Europe/London', clock: options.clock ?? (() => new Date()) };
  await app.register(usersQueries, { db });
  await app.register(clientsQueries, { db, today });
  await app.register(tutorsQueries, { db });
  await app.register(lessonQueries, { db });
  await app.register(engagementQueries, { db });
  await app.register(invoiceQueries, { db });
  await app.register(healthQueries, { db });
  return app;
}
