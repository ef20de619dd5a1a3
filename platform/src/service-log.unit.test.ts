import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');

/**
 * The service log is written to stdout once per turn of the event loop (front-door.ts,
 * `serviceLogger`): what a process logged just before it exits must still reach stdout, in order.
 */
describe('the service log', () => {
  it('reaches stdout whole and in order when the process exits straight after logging', () => {
    const script = `
      import Fastify from 'fastify';
      import { serviceLogger } from '@agency/platform/front-door';
      const app = Fastify({ logger: serviceLogger('info') });
      for (let i = 0; i < 2000; i++) app.log.info({ line: i }, 'a line');
      process.exit(0);
    `;
    const output = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    const lines = output
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { line: number; msg: string });
    expect(lines.map((line) => line.line)).toEqual(Array.from({ length: 2000 }, (_, i) => i));
  });

  it("keeps the last lines before an exit while libuv's thread pool is busy", () => {
    // The pool's one thread is held by an open of a FIFO nobody writes to (in the product: password
    // hashing, a large answer's compression): a line whose write waits for the pool is lost at exit.
    const dir = mkdtempSync(join(tmpdir(), 'service-log-'));
    try {
      execFileSync('mkfifo', [join(dir, 'fifo')]);
      const script = `
        import { closeSync, open, openSync } from 'node:fs';
        import Fastify from 'fastify';
        import { serviceLogger } from '@agency/platform/front-door';
        const fifo = ${JSON.stringify(join(dir, 'fifo'))};
        const app = Fastify({ logger: serviceLogger('info') });
        open(fifo, 'r', () => {});
        // Once the log has had its say at exit, the thread is let go (Node waits for it to end).
        process.on('exit', () => closeSync(openSync(fifo, 'w')));
        app.log.info({ line: 0 }, 'a request failed');
        app.log.warn({ line: 1 }, 'the process ends');
        process.exit(0);
      `;
      const output = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, UV_THREADPOOL_SIZE: '1' },
      });
      const lines = output
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { line: number });
      expect(lines.map((line) => line.line)).toEqual([0, 1]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
