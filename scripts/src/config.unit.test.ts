import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configFromEnvironment } from './config';

describe('configuration from the environment: METRICS_TOKEN', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'agency-config-'));
  // configFromEnvironment sets the process's TZ: put back as it was for the files after this one.
  const timeZone = process.env.TZ;
  afterAll(() => {
    if (timeZone === undefined) delete process.env.TZ;
    else process.env.TZ = timeZone;
    rmSync(dataDir, { recursive: true, force: true });
  });
  const config = (env: NodeJS.ProcessEnv) =>
    configFromEnvironment({ DATA_DIR: dataDir, JWT_SECRET: 'a-secret', ...env });

  it('leaves GET /metrics off when unset or empty', () => {
    expect(config({}).metricsToken).toBeUndefined();
    expect(config({ METRICS_TOKEN: '' }).metricsToken).toBeUndefined();
  });

  it('takes a token of 16 characters or more, and refuses a shorter one rather than start with it', () => {
    expect(config({ METRICS_TOKEN: 'sixteen-chars-ok' }).metricsToken).toBe('sixteen-chars-ok');
    expect(() => config({ METRICS_TOKEN: 'fifteen-chars!!' })).toThrow(/METRICS_TOKEN must be at least 16 characters/);
  });
});
