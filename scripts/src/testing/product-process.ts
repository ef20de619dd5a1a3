import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** `npm start` as a user runs it: its own embedded PostgreSQL in DATA_DIR, on the given port. */
export function startProcess(dataDir: string, port: number, env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/src/start.ts'], {
    env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, DEMO_DATA: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const ready = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready in time:\n${output}`)), 120_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      if (/is ready at .*\n[^\n]+\n/.test(output)) {
        clearTimeout(timer);
        resolve(output);
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.on('exit', (code) => reject(new Error(`exited (${code}) before it was ready:\n${output}`)));
  });
  return { child, ready, output: () => output };
}

export const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.on('exit', (code) => resolve(code));
  });

export function postmasterPid(dataDir: string): number | null {
  const file = join(dataDir, 'pg', 'postmaster.pid');
  return existsSync(file) ? Number.parseInt(readFileSync(file, 'utf8').split('\n')[0] ?? '', 10) : null;
}

export const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Stops a PostgreSQL a failed test left running in `dataDir`. */
export async function stopLeftoverPostgres(dataDir: string) {
  const pid = postmasterPid(dataDir);
  if (pid && alive(pid)) {
    process.kill(pid, 'SIGINT');
    for (let i = 0; i < 100 && alive(pid); i++) await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function login(port: number, username: string, password: string) {
  const response = await fetch(`http://localhost:${port}/auth/local`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  return { status: response.status, body: await response.json() };
}
