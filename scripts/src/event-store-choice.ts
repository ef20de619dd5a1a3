import { assertStorePositionsValid, EsdbEventStore, type EventStore, PostgresEventStore } from '@agency/platform';
import pg from 'pg';

/**
 * Where the events live: the PostgreSQL store beside the read models (the default), or an
 * EventStoreDB/KurrentDB server (`EVENT_STORE=esdb` with `EVENTSTORE_CONNECTION_STRING`). Read
 * models, their checkpoints, accounts, sessions and idempotency stay in PostgreSQL either way.
 */
export type EventStoreChoice = { kind: 'postgres' } | { kind: 'esdb'; connectionString: string };

export function eventStoreFromEnvironment(env: NodeJS.ProcessEnv = process.env): EventStoreChoice {
  const kind = env.EVENT_STORE || 'postgres';
  if (kind === 'postgres') return { kind };
  if (kind !== 'esdb') throw new Error(`EVENT_STORE must be postgres or esdb, not ${kind}`);
  const connectionString = env.EVENTSTORE_CONNECTION_STRING;
  if (!connectionString) {
    throw new Error('EVENT_STORE=esdb needs EVENTSTORE_CONNECTION_STRING (e.g. esdb://eventstore:2113?tls=false)');
  }
  return { kind, connectionString };
}

/**
 * The chosen store, ready for use. A PostgreSQL store is migrated and its positions checked (one
 * restored or moved from another cluster must be rebased first); an EventStoreDB server must
 * answer within 10 s, so a wrong address fails the start rather than the first command.
 */
export async function openEventStore(
  choice: EventStoreChoice | undefined,
  databaseUrl: string,
  options: { log?: (message: string) => void } = {},
): Promise<EventStore> {
  if (choice?.kind === 'esdb') {
    const store = EsdbEventStore.connect(choice.connectionString);
    try {
      await store.ping(10_000);
    } catch (error) {
      await store.close().catch(() => {});
      throw new Error(`No EventStoreDB/KurrentDB answered at EVENTSTORE_CONNECTION_STRING: ${error}`);
    }
    return store;
  }
  const store = await PostgresEventStore.connect(databaseUrl, { log: options.log });
  const check = new pg.Client({ connectionString: databaseUrl });
  try {
    await check.connect();
    await assertStorePositionsValid(check);
  } catch (error) {
    await store.close().catch(() => {});
    throw error;
  } finally {
    await check.end().catch(() => {});
  }
  return store;
}
