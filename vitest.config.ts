import { relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Test files that take far longer than their size suggests, longest first (seconds on a quiet
 * two-core machine, from a run's report). Update it from a run's report when a file's time
 * changes much; a file missing here only runs later than it could.
 */
const KNOWN_SLOW = [
  'command-service/src/crash-retry-property.int.test.ts', // 56
  'scripts/src/crash.int.test.ts', // 48
  'scripts/src/demo/engagements.int.test.ts', // 37
  'scripts/src/erasure.int.test.ts', // 37
  'scripts/src/export.int.test.ts', // 35
  'projection-service/src/rebuild.int.test.ts', // 33
  'scripts/src/store-copy.int.test.ts', // 19
  'command-service/src/workshops/workshops.int.test.ts', // 18
  'scripts/src/store-encrypt.int.test.ts', // 14
  'scripts/src/start.int.test.ts', // 14
];

/**
 * Vitest starts the test files it has no times for (every file, in a fresh clone) largest first.
 * Some of the longest files are among the smallest, and started last they left the other workers
 * idle until they finished: the files known to be slow start first. Once vitest has times of its
 * own for every file (a later run in the same checkout), it orders them by those.
 */
class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const timed = (file: TestSpecification) =>
      this.ctx.cache.getFileTestResults(`${file.project.name}:${relative(this.ctx.config.root, file.moduleId)}`);
    if (sorted.every(timed)) return sorted;
    const rank = (file: TestSpecification) => {
      const index = KNOWN_SLOW.findIndex((path) => file.moduleId.endsWith(`/${path}`));
      return index === -1 ? KNOWN_SLOW.length : index;
    };
    return sorted
      .map((file, position) => ({ file, position, rank: rank(file) }))
      .sort((a, b) => a.rank - b.rank || a.position - b.position)
      .map(({ file }) => file);
  }
}

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
          name: 'component',
          include: ['ui/src/**/*.component.test.tsx'],
          // happy-dom rather than jsdom: jsdom's current major needs Node 22, and the house runs 20.
          environment: 'happy-dom',
          setupFiles: ['ui/src/testing/component-setup.ts'],
          // A file's stubbed fetch is put back after each test.
          unstubGlobals: true,
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
