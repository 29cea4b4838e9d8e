// A command that runs Playwright as its child must not leave it behind. SIGTERM sent to the CLI alone (a CI job's
// timeout, `kill <pid>`, a process manager) would end the CLI and leave Playwright and its workers running to the end of
// the run against the deployment. While the child runs, SIGTERM and SIGHUP are passed on to it; the command then ends,
// after its own cleanup, with the signal's conventional exit code (128 + its number). SIGINT is left as it is: Ctrl-C
// reaches the whole process group, Playwright included, and Playwright stops at once on a second one.
import type { ChildProcess } from 'node:child_process';
import { constants } from 'node:os';

const PASSED_ON = ['SIGTERM', 'SIGHUP'] as const;

/** The signal that stopped the run, if one came: 128 + its number is the command's exit code. */
export const stopExitCode = (signal: NodeJS.Signals) => 128 + constants.signals[signal];

/** The first stop signal that came; the last one that came stays remembered after the child has ended. */
let received: NodeJS.Signals | undefined;
export const stopSignalReceived = () => received;

/** Passes SIGTERM and SIGHUP on to `child` until it exits. */
export function passOnStop(child: ChildProcess): void {
  const handlers = PASSED_ON.map((signal) => {
    const handler = () => {
      received ??= signal;
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    };
    process.on(signal, handler);
    return [signal, handler] as const;
  });
  child.once('exit', () => {
    for (const [signal, handler] of handlers) process.off(signal, handler);
  });
}
