// Named points where the crash test (`npm run crash-test`, CRASH_POINT) kills the process, as failpoints do in databases:
// a SIGKILL there leaves exactly what a power cut at that instant would. Unset, a crash point costs one comparison.
import type { Config } from './config.js';

export type CrashPoint = NonNullable<Config['crashPoint']>;

export function crashPoint(config: Config, at: CrashPoint): void {
  if (config.crashPoint === at) process.kill(process.pid, 'SIGKILL');
}
