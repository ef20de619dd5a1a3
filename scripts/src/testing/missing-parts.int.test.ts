import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// A tier whose browser or database cannot start must fail `npm test`, never pass with its tests
// unrun: vitest alone exits 0 when a project's global setup throws before any file is collected.
const repo = fileURLToPath(new URL('../../..', import.meta.url));

/** Runs one vitest project as `npm test` does, in a child process with `env` added; answers its exit code and output. */
function runProject(args: string[], env: Record<string, string>): Promise<{ code: number; output: string }> {
  // The child is a run of its own, not a worker of this one.
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST')));
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['node_modules/vitest/vitest.mjs', 'run', ...args],
      { cwd: repo, env: { ...inherited, ...env, CI: '1' }, timeout: 110_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, output: stdout + stderr });
      },
    );
  });
}

describe('a tier whose part cannot start fails the run with a message saying so', () => {
  it('the browser tier without Chromium', async () => {
    const run = await runProject(['--project', 'e2e'], { CHROMIUM_PATH: '/nonexistent/chromium' });
    expect(run.output).toContain('Chromium was not found at /nonexistent/chromium');
    expect(run.code).not.toBe(0);
  });

  it('the integration tier without its PostgreSQL', async () => {
    // A file that needs the database; the setup must stop the run before it is even collected.
    const run = await runProject(['--project', 'int', 'platform/src/event-store/postgres-event-store.int.test.ts'], {
      TEST_DATABASE_URL: 'postgres://nobody:nothing@127.0.0.1:1/none',
    });
    expect(run.output).toContain('PostgreSQL at TEST_DATABASE_URL could not be reached');
    expect(run.code).not.toBe(0);
  });
});
