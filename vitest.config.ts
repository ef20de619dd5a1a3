import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: { name: 'unit', include: ['*/src/**/*.unit.test.{ts,tsx}'], environment: 'node' },
      },
      {
        test: {
          name: 'int',
          include: ['*/src/**/*.int.test.ts'],
          globalSetup: ['scripts/src/testing/database.global.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['e2e/**/*.e2e.ts'],
          globalSetup: ['e2e/support/product.global.ts'],
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
