// npm run bench [-- --only startup,throughput,suite,failing,self-test,scoped,latency,tests] [--rounds N] [--seconds S]: the project's targets,
// measured on this machine as medians and as ratios taken in the same run (these machines are shared and noisy, so never
// compare a figure with a constant from another run). Each section prints its figures and whether its target is met.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { benchStartup } from './startup.js';
import { benchThroughput } from './throughput.js';
import { benchSuite } from './suite.js';
import { benchFailing } from './failing.js';
import { benchScoped } from './scoped.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SECTIONS = ['startup', 'throughput', 'suite', 'failing', 'self-test', 'scoped', 'latency', 'tests'] as const;

const { values } = parseArgs({
  options: {
    only: { type: 'string', default: SECTIONS.join(',') },
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '5' },
  },
});
const only = new Set(values.only!.split(',').map((s) => s.trim()));
const unknown = [...only].filter((s) => !(SECTIONS as readonly string[]).includes(s));
if (unknown.length > 0) {
  process.stderr.write(`bench: unknown section ${unknown[0]} (sections: ${SECTIONS.join(', ')})\n`);
  process.exit(2);
}
const rounds = Number(values.rounds);
let missed = 0;
const verdict = (ok: boolean) => {
  if (!ok) missed++;
  return ok ? 'met' : 'MISSED';
};
const line = (text: string) => process.stdout.write(`${text}\n`);

// The sections that run the published bin need it built from the current sources.
if (['startup', 'throughput', 'suite', 'failing', 'self-test', 'scoped'].some((x) => only.has(x))) {
  const built = spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
  if (built.status !== 0) {
    process.stderr.write('bench: npm run build failed\n');
    process.exit(1);
  }
}

if (only.has('startup')) {
  line('\n== CLI start-up (median of 7, node dist/cli/bin.cjs; target ≤ 0.30 s)');
  const r = benchStartup(7);
  line(`   node -e 0                         ${r.node.toFixed(2)} s`);
  for (const [cmd, s] of Object.entries(r.commands)) line(`   ${cmd.padEnd(33)} ${s.toFixed(2)} s  ${verdict(s <= 0.3)}`);
}

if (only.has('throughput')) {
  line(
    `\n== Reference throughput beside a trivial Express 5 GET (autocannon, 50 connections, ${rounds} rounds of ${values.seconds} s; median ratios)`,
  );
  const r = await benchThroughput({ rounds, seconds: Number(values.seconds), connections: 50 });
  line(`   ${'trivial Express 5 GET'.padEnd(44)} ${r.trivialReqPerSec.toFixed(0)} req/s`);
  const targets: Record<string, number> = {
    'authenticated GET /v1/cart': 0.7,
    'guest GET /v1/catalog/products/{handle}': 0.7,
    'assistant GET /v1/cart (DPoP)': 0.5,
  };
  for (const [name, ratio] of Object.entries(r.ratios)) {
    const failures = r.failures[name] ? `  (${r.failures[name]} non-2xx or errors!)` : '';
    const target = targets[name];
    const judged = target === undefined ? '(no target)' : `target ≥ ${target}×  ${verdict(ratio >= target && !r.failures[name])}`;
    line(`   ${name.padEnd(44)} ${ratio.toFixed(2)}×  ${judged}${failures}`);
  }
  line(
    `   ${'RSS after 100 connections'.padEnd(44)} ${r.rss100.rssMb.toFixed(0)} MB (peak ${r.rss100.peakMb.toFixed(0)} MB)  target ≤ 150 MB  ${verdict(r.rss100.peakMb <= 150)}`,
  );
}

if (only.has('suite')) {
  line('\n== Full embedded run (shop-conformance run, default workers; target ≤ 1.2 × its floor)');
  const r = benchSuite();
  line(
    `   wall ${r.wallS.toFixed(1)} s, floor ${r.floorS.toFixed(1)} s (${r.floorCheck}): ${(r.wallS / r.floorS).toFixed(2)} × floor  ${verdict(r.wallS <= 1.2 * r.floorS)}`,
  );
  line(`   checks (Playwright) ${r.playwrightS.toFixed(1)} s; start, doctor and reporters ${r.outsideS.toFixed(1)} s`);
  line(`   ${r.passed} passed, ${r.failed} failed, ${r.skipped} skipped`);
}

if (only.has('failing')) {
  line(`\n== A failing deployment beside a passing one (level spec, reference behind a proxy; median of ${rounds}; target ≤ 2 ×)`);
  const r = await benchFailing(rounds);
  line(`   passing ${r.passingS.toFixed(1)} s; X-Request-Id dropped (most checks fail) ${r.failingS.toFixed(1)} s (exits ${r.exits})`);
  line(`   ratio ${(r.failingS / r.passingS).toFixed(2)} ×  ${verdict(r.failingS <= 2 * r.passingS)}`);
}

if (only.has('self-test')) {
  line('\n== Full self-test against the embedded reference (every defect of the library; target ≤ 300 s, no survivor)');
  const output = mkdtempSync(join(tmpdir(), 'bench-selftest-'));
  const started = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [`${ROOT}dist/cli/main.js`, 'self-test', '--output', output], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const wall = Number(process.hrtime.bigint() - started) / 1e9;
  try {
    const report = JSON.parse(readFileSync(join(output, 'self-test.json'), 'utf8')) as {
      summary: { defects: number; killed: number; survived: number; unjudged: number; killRate: number };
      coverage: { testable: number; covered: number };
    };
    const s = report.summary;
    line(`   wall ${wall.toFixed(0)} s for ${s.defects} defects  ${verdict(wall <= 300)}`);
    line(
      `   ${s.killed} killed, ${s.survived} survived, ${s.unjudged} unjudged (kill rate ${(s.killRate * 100).toFixed(1)}%)  ${verdict(s.survived === 0 && r.status === 0)}`,
    );
    line(`   clauses with a defect: ${report.coverage.covered} of ${report.coverage.testable} testable`);
  } catch (err) {
    line(`   the self-test wrote no report (exit ${r.status}): ${(err as Error).message}  ${verdict(false)}`);
  } finally {
    rmSync(output, { recursive: true, force: true });
  }
}

if (only.has('scoped')) benchScoped(ROOT, line, verdict);

if (only.has('latency')) {
  line('\n== Latency of single scenarios (median and p95; bench/latency.ts)');
  spawnSync(process.execPath, ['--import', 'tsx', `${ROOT}bench/latency.ts`], { cwd: ROOT, stdio: 'inherit' });
}

if (only.has('tests')) {
  line('\n== npm test, script by script (wall time)');
  let total = 0;
  for (const script of ['typecheck', 'lint', 'format:check', 'test:unit', 'test:http', 'test:cli', 'test:conformance']) {
    const started = process.hrtime.bigint();
    const r = spawnSync('npm', ['run', '--silent', script], { cwd: ROOT, stdio: 'ignore' });
    const s = Number(process.hrtime.bigint() - started) / 1e9;
    total += s;
    line(`   ${script.padEnd(20)} ${s.toFixed(0).padStart(5)} s  ${r.status === 0 ? 'ok' : `FAILED (exit ${r.status})`}`);
    if (r.status !== 0) missed++;
  }
  line(`   ${'total'.padEnd(20)} ${total.toFixed(0).padStart(5)} s`);
}

line(missed === 0 ? '\nbench: every target met' : `\nbench: ${missed} target(s) missed`);
process.exitCode = missed === 0 ? 0 : 1;
