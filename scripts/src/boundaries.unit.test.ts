import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The boundary check runs on a copy of the working tree, so that the planted imports below are never seen by
// anyone else's `npm run check` and the test sees the tree exactly as `npm run check` does.
const repo = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

type Outcome = { code: number; output: string };

/** The boundary step of the `check` script, run as written there, in `cwd`. */
async function checkBoundaries(cwd: string): Promise<Outcome> {
  // `check` runs its parts as `check:*` scripts, so the step is looked for in each of them.
  const scripts: Record<string, string> = JSON.parse(await readFile(path.join(repo, 'package.json'), 'utf8')).scripts;
  const checks = Object.entries(scripts).filter(([name]) => name === 'check' || name.startsWith('check:'));
  const step = checks.flatMap(([, script]) => script.split(' && ')).find((command) => command.startsWith('depcruise '));
  if (step === undefined) throw new Error(`npm run check has no depcruise step: ${JSON.stringify(checks)}`);
  const [bin, ...args] = step.split(' ');
  try {
    const { stdout, stderr } = await run(path.join('node_modules', '.bin', bin), args, { cwd });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

/** Copies the files git would show (tracked and untracked, not ignored), and a node_modules whose workspace
 * links point into the copy, as npm's do into the tree. */
async function copyTree(): Promise<string> {
  const copy = await mkdtemp(path.join(tmpdir(), 'boundaries-'));
  const { stdout } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: repo });
  const files = stdout.split('\0').filter((file) => file !== '');
  await Promise.all(
    files.map(async (file) => {
      await mkdir(path.dirname(path.join(copy, file)), { recursive: true });
      await copyFile(path.join(repo, file), path.join(copy, file)).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error; // a file deleted in the tree but not yet in git
      });
    }),
  );
  await mkdir(path.join(copy, 'node_modules', '@agency'), { recursive: true });
  for (const entry of await readdir(path.join(repo, 'node_modules'))) {
    if (entry !== '@agency')
      await symlink(path.join(repo, 'node_modules', entry), path.join(copy, 'node_modules', entry));
  }
  const workspaces: string[] = JSON.parse(await readFile(path.join(repo, 'package.json'), 'utf8')).workspaces;
  for (const workspace of workspaces) {
    await symlink(path.join('..', '..', workspace), path.join(copy, 'node_modules', '@agency', workspace));
  }
  return copy;
}

const message = {
  byName:
    'Import another workspace package by its name (@agency/<package>/...), never by a relative path into its src/.',
  testSupport: 'Test support lives in *.test.ts files or a testing/ folder, never in production sources.',
  services: 'A service never imports the other service: the two share only contracts, domain and the database.',
  domain: 'domain imports only @agency/contracts: pure rules, no I/O, no clock, no framework.',
  contracts: 'contracts imports only zod.',
  ui: 'The UI imports only contracts and domain (pure rules), never platform, a service or scripts.',
  lib: 'lib/ and components/ sit below the features: they import neither a feature nor app/.',
  feature: 'A feature imports neither another feature nor app/: move what is shared down to components/ or lib/.',
  resolvable: 'An import that does not resolve cannot be checked against the boundaries.',
};

// Files the probes import; each is clean on its own.
const targets = [
  'ui/src/features/probe-b/probe.ts',
  'ui/src/app/probe-target.ts',
  'command-service/src/probe-target.ts',
  'projection-service/src/probe-target.ts',
  'platform/src/probe-target.ts',
  'domain/src/probe-target.ts',
];

// One violating import per rule, each in a file of its own so that every report names its probe.
const probes = [
  {
    rule: 'feature-alone',
    message: message.feature,
    file: 'ui/src/features/probe-a/pages/probe.ts',
    code: "import '../../probe-b/probe';",
  },
  {
    rule: 'feature-alone',
    message: message.feature,
    file: 'ui/src/features/probe-a/probe.unit.test.ts',
    code: "import '../../app/probe-target';",
  },
  {
    rule: 'services-apart',
    message: message.services,
    file: 'command-service/src/probe.ts',
    code: "import '@agency/projection-service/probe-target';",
  },
  {
    rule: 'services-apart',
    message: message.services,
    file: 'projection-service/src/probe.ts',
    code: "import '@agency/command-service/probe-target';",
  },
  {
    rule: 'services-apart',
    message: message.services,
    file: 'platform/src/probe.ts',
    code: "import '@agency/command-service/probe-target';",
  },
  { rule: 'domain-pure', message: message.domain, file: 'domain/src/probe.ts', code: "import 'pg';" },
  { rule: 'contracts-zod-only', message: message.contracts, file: 'contracts/src/probe.ts', code: "import 'dayjs';" },
  {
    rule: 'ui-pure',
    message: message.ui,
    file: 'ui/src/app/probe.ts',
    code: "import '@agency/platform/probe-target';",
  },
  {
    rule: 'lib-below-features',
    message: message.lib,
    file: 'ui/src/lib/probe.ts',
    code: "import '../features/probe-b/probe';",
  },
  {
    rule: 'test-support-in-tests',
    message: message.testSupport,
    file: 'command-service/src/probe-support.ts',
    code: "import { expect } from 'vitest';",
  },
  {
    rule: 'package-by-name',
    message: message.byName,
    file: 'scripts/src/probe.ts',
    code: "import '../../domain/src/probe-target';",
  },
  { rule: 'resolvable', message: message.resolvable, file: 'ui/src/components/probe.ts', code: "import './nowhere';" },
];

describe('npm run check enforces the import boundaries', () => {
  let copy: string;

  beforeAll(async () => {
    copy = await copyTree();
  }, 60_000);

  afterAll(async () => {
    await rm(copy, { recursive: true, force: true });
  });

  it('passes on the tree as it is', async () => {
    const { code, output } = await checkBoundaries(copy);
    expect(output).toContain('no dependency violations found');
    expect(code).toBe(0);
  }, 120_000);

  describe('with one violating import planted per rule', () => {
    let outcome: Outcome;

    beforeAll(async () => {
      for (const [file, code] of [
        ...targets.map((file) => [file, 'export {};']),
        ...probes.map((probe) => [probe.file, probe.code]),
      ]) {
        await mkdir(path.dirname(path.join(copy, file)), { recursive: true });
        await writeFile(path.join(copy, file), `${code}\n`);
      }
      outcome = await checkBoundaries(copy);
      outcome.output = outcome.output.replace(/\s+/g, ' '); // the reporter wraps the messages
    }, 120_000);

    it('fails, reporting the planted imports and nothing else', () => {
      expect(outcome.code).not.toBe(0);
      expect(outcome.output).toContain(`${probes.length} dependency violations (${probes.length} errors`);
    });

    it.each(probes)('$rule: $file ($code)', ({ rule, message, file }) => {
      const report = outcome.output.split(' error ').find((line) => line.startsWith(`${rule}: ${file} → `));
      expect(report, outcome.output).toBeDefined();
      expect(report).toContain(message);
    });
  });
});
