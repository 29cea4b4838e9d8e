// Section `remote` of npm run bench: the suite as users run it against a deployment in another region. The reference is
// started as `shop-conformance serve` (default settings) behind test/helpers/latency-proxy.ts, which delays each request
// and each answer by half a round trip and each new connection by one; `run --base-url <proxy>` (default settings) runs
// the full suite at each round trip, and `self-test --base-url <proxy>` every defect at one. The floor of a run is its
// longest single check (from Playwright's JSON report): no number of workers makes the run shorter than it.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startLatencyProxy } from '../test/helpers/latency-proxy.js';
import { longest } from './suite.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = `${ROOT}dist/cli/main.js`;

interface Suite {
  title: string;
  suites?: Suite[];
  specs?: { title: string; tests: { results: { duration: number; status: string; error?: { message?: string } }[] }[] }[];
}

/** The checks that did not pass, each with the first line of its error: what a MISSED run must show. */
function notPassed(suites: readonly Suite[]): string[] {
  return suites.flatMap((s) => [
    ...(s.specs ?? []).flatMap((spec) =>
      spec.tests.flatMap((t) =>
        t.results
          .filter((r) => r.status !== 'passed' && r.status !== 'skipped')
          .map((r) => `${spec.title.slice(0, 90)}: ${r.status} ${(r.error?.message ?? '').split('\n')[0]!.slice(0, 300)}`),
      ),
    ),
    ...notPassed(s.suites ?? []),
  ]);
}

/** `shop-conformance serve` on a free port, as a user starts it; resolves with its URL once it listens. */
async function serve(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--host', '127.0.0.1'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`serve did not listen within 20 s: ${out.slice(-400)}`)), 20_000);
    const read = (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${out.slice(-400)}`)));
  });
  // Its logs are not read further; drained so that a full pipe never blocks it.
  child.stdout!.resume();
  child.stderr!.resume();
  return { url, child };
}

/** Stops the server: SIGTERM, and SIGKILL if it is still there after 5 s. */
function stop(child: ChildProcess): void {
  child.kill();
  setTimeout(() => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'), 5000).unref();
}

export interface RemoteRun {
  roundTripMs: number;
  wallS: number;
  floorS: number;
  floorCheck: string;
  passed: number;
  failed: number;
  exit: number | null;
  /** The checks that failed or timed out. */
  failures: string[];
  /** The CLI's own line: measured round trip, workers, in-flight share. */
  chose: string;
}

async function runAsync(args: string[]): Promise<{ code: number | null; stderr: string; wallS: number }> {
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  return { code, stderr, wallS: Number(process.hrtime.bigint() - started) / 1e9 };
}

/** The full suite (`run --base-url`, default settings) against a `serve`d reference behind the proxy at `roundTripMs`. */
export async function benchRemoteRun(roundTripMs: number): Promise<RemoteRun> {
  const { url, child } = await serve();
  const proxy = await startLatencyProxy(url, roundTripMs);
  const output = mkdtempSync(join(tmpdir(), 'bench-remote-'));
  try {
    const r = await runAsync(['run', '--base-url', proxy.url, '--reporter', 'dot,json', '--output', output]);
    const report = JSON.parse(readFileSync(join(output, 'results.json'), 'utf8')) as {
      stats: { expected: number; unexpected: number };
      suites: Suite[];
    };
    const floor = longest(report.suites);
    return {
      roundTripMs,
      wallS: r.wallS,
      floorS: floor.ms / 1000,
      floorCheck: floor.title,
      passed: report.stats.expected,
      failed: report.stats.unexpected,
      exit: r.code,
      failures: notPassed(report.suites),
      chose: /round trip[^\n]*/.exec(r.stderr)?.[0] ?? '',
    };
  } finally {
    rmSync(output, { recursive: true, force: true, maxRetries: 3 });
    await proxy.close();
    stop(child);
  }
}

export interface RemoteSelfTest {
  wallS: number;
  defects: number;
  killed: number;
  survived: number;
  unjudged: number;
  exit: number | null;
  /** The defects killed. */
  killedIds: string[];
}

/** Every defect of the library (`self-test --base-url`, default settings) against the reference behind the proxy. */
export async function benchRemoteSelfTest(roundTripMs: number): Promise<RemoteSelfTest> {
  const { url, child } = await serve();
  const proxy = await startLatencyProxy(url, roundTripMs);
  const output = mkdtempSync(join(tmpdir(), 'bench-remote-selftest-'));
  try {
    const r = await runAsync(['self-test', '--base-url', proxy.url, '--output', output]);
    const report = JSON.parse(readFileSync(join(output, 'self-test.json'), 'utf8')) as {
      summary: { defects: number; killed: number; survived: number; unjudged: number };
      defects: { id: string; verdict: string }[];
    };
    const killedIds = report.defects.filter((d) => d.verdict === 'killed').map((d) => d.id);
    return { wallS: r.wallS, ...report.summary, exit: r.code, killedIds };
  } finally {
    rmSync(output, { recursive: true, force: true, maxRetries: 3 });
    await proxy.close();
    stop(child);
  }
}

/** Prints the section: runs at 0, 40 and 100 ms, the self-test at 100 ms, each against its target. */
export async function benchRemote(line: (s: string) => void, verdict: (ok: boolean) => string): Promise<void> {
  line('\n== A deployment far away: the reference (serve) behind a latency proxy; run and self-test with default settings');
  line(
    '   (targets: run at 100 ms ≤ 1.3 × its floor; self-test at 100 ms ≤ 300 s, killing what it kills at 0 ms; run at 0 ms no slower than the embedded run; every run passes)',
  );
  // Today's yardstick, measured in the same bench: the embedded run (the reference in the CLI's process, default workers).
  const output = mkdtempSync(join(tmpdir(), 'bench-remote-embedded-'));
  const started = process.hrtime.bigint();
  spawnSync(process.execPath, [BIN, 'run', '--reporter', 'dot', '--output', output], { cwd: ROOT, stdio: 'ignore' });
  const embeddedS = Number(process.hrtime.bigint() - started) / 1e9;
  rmSync(output, { recursive: true, force: true });
  line(`   embedded run (no proxy): wall ${embeddedS.toFixed(1)} s`);
  for (const rtt of [0, 40, 100]) {
    try {
      const r = await benchRemoteRun(rtt);
      const ratio = r.wallS / r.floorS;
      const target =
        rtt === 100
          ? `  ${verdict(ratio <= 1.3)}`
          : rtt === 0
            ? `; ${(r.wallS / embeddedS).toFixed(2)} × the embedded run (≤ 1.10)  ${verdict(r.wallS <= 1.1 * embeddedS)}`
            : '';
      line(
        `   ${String(rtt).padStart(3)} ms: wall ${r.wallS.toFixed(1)} s, floor ${r.floorS.toFixed(1)} s (${r.floorCheck}), ${ratio.toFixed(2)} × floor${target}`,
      );
      line(`           ${r.passed} passed, ${r.failed} failed (exit ${r.exit}); ${r.chose}${r.exit === 0 ? '' : `  ${verdict(false)}`}`);
      for (const f of r.failures) line(`           not passed: ${f}`);
    } catch (err) {
      line(`   ${rtt} ms: ${(err as Error).message}  ${verdict(false)}`);
    }
  }
  // The self-test against a deployment cannot judge what only a variant deployment shows (its profile says so): the
  // yardstick is the same self-test without latency, and every defect it kills must be killed at 100 ms too.
  try {
    const near = await benchRemoteSelfTest(0);
    const far = await benchRemoteSelfTest(100);
    const lost = near.killedIds.filter((id) => !far.killedIds.includes(id));
    line(
      `   self-test at 0 ms: wall ${near.wallS.toFixed(0)} s for ${near.defects} defects; ${near.killed} killed, ${near.survived} survived, ${near.unjudged} unjudged (exit ${near.exit})`,
    );
    line(
      `   self-test at 100 ms: wall ${far.wallS.toFixed(0)} s for ${far.defects} defects  ${verdict(far.wallS <= 300)}; ${far.killed} killed, ${far.survived} survived, ${far.unjudged} unjudged; killed at 0 ms, not at 100 ms: ${lost.length ? lost.join(' ') : 'none'}  ${verdict(lost.length === 0)}`,
    );
  } catch (err) {
    line(`   self-test at 0 and 100 ms: ${(err as Error).message}  ${verdict(false)}`);
  }
}
