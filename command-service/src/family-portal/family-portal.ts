import type { Sessions } from '@agency/platform/sessions';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { ResetThrottle } from '../auth/reset-throttle';
import type { CommandDependencies } from '../pipeline/command-pipeline';
import { calendarFeedRoutes } from './calendar-feed-routes';
import { familyAccessRoutes } from './family-access-routes';
import { familyBookingRoutes } from './family-booking-routes';
import { familyContactRoutes } from './family-contact-routes';
import { familyErasureRoutes } from './family-erasure-routes';
import { FAMILY_LINK_LIMITS } from './family-logins';
import { familySignInRoutes } from './family-sign-in-routes';

/** Families' own sign-in, their bookings, and the admin's hold on them, as one registration (docs/family-access.md). */
export async function familyPortal(
  app: FastifyInstance,
  options: { db: pg.Pool; deps: CommandDependencies; sessions: Sessions; timeZone: string; publicUrl: string },
) {
  const { db, deps, sessions } = options;
  // Its own bucket: links asked for from an address do not spend its password resets, nor the reverse.
  const throttle = new ResetThrottle(db, 'family-link', FAMILY_LINK_LIMITS);
  await familySignInRoutes(app, { db, deps, sessions, throttle });
  await familyAccessRoutes(app, { db, deps, sessions });
  await familyBookingRoutes(app, { db, deps, timeZone: options.timeZone });
  await familyErasureRoutes(app, { deps });
  await familyContactRoutes(app, { deps });
  await calendarFeedRoutes(app, { db, publicUrl: options.publicUrl });
}
