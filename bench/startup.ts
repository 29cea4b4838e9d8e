// Start-up time of the CLI's commands, as the published bin runs them (node dist/cli/bin.cjs; bench/run.ts builds it first): the median
// of several runs of each, beside a bare `node -e 0` measured in the same run.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = `${ROOT}dist/cli/bin.cjs`;

/** Everything but run, serve and self-test, which start servers or browsers by design. */
export const STARTUP_COMMANDS: readonly (readonly string[])[] = [
  ['--version'],
  ['--help'],
  ['token', 'guest'],
  ['token', 'customer'],
  ['guest-session'],
  ['dpop', '--help'],
  ['clauses', '--help'],
  ['doctor', '--help'],
  ['profile', 'init', '--help'],
  ['idp', '--help'],
  ['run', '--help'],
];

function seconds(args: readonly string[]): number {
  const started = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args as string[], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited with ${r.status}: ${r.stderr.toString().split('\n')[0]}`);
  return Number(process.hrtime.bigint() - started) / 1e9;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export function benchStartup(runs: number): { node: number; commands: Record<string, number> } {
  const node = median(Array.from({ length: runs }, () => seconds(['-e', '0'])));
  const commands: Record<string, number> = {};
  for (const args of STARTUP_COMMANDS) commands[args.join(' ')] = median(Array.from({ length: runs }, () => seconds([BIN, ...args])));
  return { node, commands };
}
