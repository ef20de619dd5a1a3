import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');

/**
 * The service log is written to stdout asynchronously (front-door.ts, `serviceLogger`): what a
 * process logged just before it exits must still reach stdout, in order.
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
});
