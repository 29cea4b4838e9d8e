// The self-test runs a check's copies (baseline, each defect) in any worker, at once. A check that works on the
// deployment's seeded data (CheckSpec.seed: a seeded account's cart, its saved card) cannot run beside itself: two copies
// would order from one cart. Its copies take turns, through an exclusive lock file per check id in a directory the CLI
// clears before the run. A lock whose worker is gone (killed at a timeout) is taken over.
import { mkdirSync, openSync, closeSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const POLL_MS = 25;

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Waits for the lock of `check` in `dir` and takes it; resolves with its release. */
export async function lockCheck(dir: string, check: string): Promise<() => void> {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, encodeURIComponent(check));
  for (;;) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    let holder: number;
    try {
      holder = Number(readFileSync(path, 'utf8'));
    } catch {
      continue; // released between the two calls
    }
    // An empty file is a lock being written; a holder that is gone left it behind.
    if (Number.isInteger(holder) && holder > 0 && !alive(holder)) rmSync(path, { force: true });
    else await sleep(POLL_MS);
  }
}
