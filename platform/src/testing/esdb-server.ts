import { EventStoreDBClient, START } from '@eventstore/db-client';

/**
 * Fails `npm run test:esdb` before any test runs (vitest.esdb.config.ts awaits it while loading;
 * a global setup that throws leaves vitest 4 exiting with 0) when EVENTSTORE_CONNECTION_STRING is
 * unset or names a server that does not answer within 5 s: the suite is never skipped silently.
 * It imports the client library only, since the config is loaded before TypeScript workspaces are.
 */
export async function assertEsdbServerReachable(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const connectionString = env.EVENTSTORE_CONNECTION_STRING;
  if (!connectionString) {
    throw new Error(
      'EVENTSTORE_CONNECTION_STRING is not set: npm run test:esdb runs against a live EventStoreDB/KurrentDB ' +
        '(e.g. EVENTSTORE_CONNECTION_STRING=esdb://localhost:2113?tls=false with `docker compose --profile esdb up eventstore`).',
    );
  }
  let client: EventStoreDBClient;
  try {
    client = EventStoreDBClient.connectionString(connectionString);
  } catch (error) {
    throw new Error(`EVENTSTORE_CONNECTION_STRING (${connectionString}) is not a usable connection string: ${error}`);
  }
  try {
    for await (const _ of client.readAll({ maxCount: 1, fromPosition: START, deadline: 5000 })) break;
  } catch (error) {
    throw new Error(
      `No EventStoreDB/KurrentDB answered at EVENTSTORE_CONNECTION_STRING (${connectionString}) within 5 s: ${error}`,
    );
  } finally {
    await client.dispose().catch(() => {});
  }
  return connectionString;
}
