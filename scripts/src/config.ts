import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { type EventStoreChoice, eventStoreFromEnvironment } from './event-store-choice';
import { privateDir, secretFile } from './private-files';

export type ProductConfig = {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl?: string;
  adminUsername: string;
  adminPassword?: string;
  jwtSecret: string;
  timeZone: string;
  publicUrl: string;
  /** smtp://host:port for outgoing mail; without it mail goes to DATA_DIR/outbox as .eml files. */
  smtpUrl?: string;
  mailFrom: string;
  /**
   * MAIL_PRINT_LINKS=1: without SMTP_URL, print each message's recipient, subject and links (live
   * credentials) to stdout. Unset, only the outbox file's name is printed.
   */
  mailPrintLinks?: boolean;
  demoData: boolean;
  /** EVENT_STORE: postgres (the default, beside the read models) or esdb (EVENTSTORE_CONNECTION_STRING). */
  eventStore?: EventStoreChoice;
  /** TRUST_PROXY: the reverse proxies in front (comma-separated addresses or CIDR ranges). */
  trustProxy?: string[];
  /** METRICS_TOKEN: the bearer token that reads GET /metrics; without it there is no /metrics (README, "Monitoring"). */
  metricsToken?: string;
};

/** The JWT secret is generated once and kept in DATA_DIR (0600), so sessions survive a restart. */
function jwtSecretFor(dataDir: string): string {
  return secretFile(join(dataDir, 'jwt-secret'), () => randomBytes(48).toString('base64url'));
}

export function configFromEnvironment(env: NodeJS.ProcessEnv = process.env): ProductConfig {
  const port = Number.parseInt(env.PORT ?? '3000', 10);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`PORT must be a port number, not ${env.PORT}`);
  const dataDir = resolve(env.DATA_DIR ?? '.data');
  // The JWT secret, the database password and the mail outbox (reset links) live here: 0700.
  privateDir(dataDir);
  // A guessable token would hand out the product's figures: refused rather than accepted quietly.
  if (env.METRICS_TOKEN && env.METRICS_TOKEN.length < 16)
    throw new Error('METRICS_TOKEN must be at least 16 characters (e.g. openssl rand -hex 24)');
  const timeZone = env.TZ || 'Europe/London';
  // Node reads TZ for Date's local time; the rules use timeZone explicitly.
  process.env.TZ = timeZone;
  return {
    port,
    host: env.HOST ?? 'localhost',
    dataDir,
    databaseUrl: env.DATABASE_URL || undefined,
    adminUsername: env.ADMIN_USERNAME || 'admin',
    adminPassword: env.ADMIN_PASSWORD || undefined,
    jwtSecret: env.JWT_SECRET || jwtSecretFor(dataDir),
    timeZone,
    publicUrl: env.PUBLIC_URL || `http://localhost:${port}`,
    smtpUrl: env.SMTP_URL || undefined,
    mailFrom: env.MAIL_FROM || 'Tutoring Agency <no-reply@localhost>',
    mailPrintLinks: env.MAIL_PRINT_LINKS === '1' || env.MAIL_PRINT_LINKS === 'true',
    demoData: env.DEMO_DATA === '1' || env.DEMO_DATA === 'true',
    eventStore: eventStoreFromEnvironment(env),
    trustProxy: env.TRUST_PROXY?.split(',')
      .map((address) => address.trim())
      .filter(Boolean),
    metricsToken: env.METRICS_TOKEN || undefined,
  };
}
