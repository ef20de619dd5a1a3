import { defineConfig } from 'vitest/config';
import { assertEsdbServerReachable } from './platform/src/testing/esdb-server';

/**
 * `npm run test:esdb`: the event-store contract suite (and whatever else is named *.esdb.test.ts)
 * against the EventStoreDB/KurrentDB server at EVENTSTORE_CONNECTION_STRING. Not part of
 * `npm test`: no server can run on the machines that run it. Without a reachable server loading
 * this file fails the run at once, naming the variable; it never skips.
 */
await assertEsdbServerReachable();

export default defineConfig({
  test: {
    name: 'esdb',
    include: ['*/src/**/*.esdb.test.ts'],
    globalSetup: ['scripts/src/testing/database.global.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
