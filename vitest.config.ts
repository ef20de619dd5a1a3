import { defineConfig } from 'vitest/config';
import { SlowFirstSequencer } from './scripts/src/testing/slow-first';

export default defineConfig({
  test: {
    sequence: { sequencer: SlowFirstSequencer },
    projects: [
      {
        test: {
          name: 'unit',
          include: ['*/src/**/*.unit.test.{ts,tsx}'],
          environment: 'node',
          // Module loading was nine tenths of the tier: its files share a worker's module graph,
          // so a file puts back what it changes (timers, globals, process.env), as they do.
          isolate: false,
        },
      },
      {
        test: {
          name: 'int',
          include: ['*/src/**/*.int.test.ts'],
          globalSetup: ['scripts/src/testing/database.global.ts'],
          // The files of a worker share one module graph instead of each evaluating the whole
          // product's again (about a third of the tier's time). So each file must leave nothing
          // running and no process-wide state behind; its test database's drop checks that its
          // connections were closed (scripts/src/testing/test-database.ts).
          isolate: false,
          // A bound for a test that hangs, not a measure of speed: with every worker running
          // tests rather than loading modules, the longest (demo seeding, the property test)
          // came near a minute on a machine others were also running tests on.
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['e2e/**/*.e2e.ts'],
          globalSetup: ['e2e/support/product.global.ts'],
          fileParallelism: false,
          // One after another in one worker, which loads Playwright and axe once.
          isolate: false,
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
