// Wall time of the full embedded run (`shop-conformance run`, default workers, as the README's first command runs it)
// beside its floor: the longest single check, the event-stream check that must see a keep-alive comment within 15 s of
// the open and the next within 15 s of it (spec: Conversation event streams). The reference sends its first comment at
// once, so the floor is one interval, about 15 s. Where the rest goes comes from Playwright's own JSON report.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface PlaywrightJson {
  stats: { startTime: string; duration: number; expected: number; unexpected: number; skipped: number };
  suites: Suite[];
}
export interface Suite {
  title: string;
  suites?: Suite[];
  specs?: { title: string; tests: { results: { duration: number }[] }[] }[];
}

/** The longest single check of a Playwright JSON report. */
export function longest(suites: readonly Suite[]): { title: string; ms: number } {
  let best = { title: '', ms: 0 };
  for (const s of suites) {
    for (const spec of s.specs ?? []) {
      const ms = Math.max(0, ...spec.tests.flatMap((t) => t.results.map((r) => r.duration)));
      if (ms > best.ms) best = { title: spec.title, ms };
    }
    const inner = longest(s.suites ?? []);
    if (inner.ms > best.ms) best = inner;
  }
  return best;
}

export interface SuiteResult {
  wallS: number;
  floorS: number;
  floorCheck: string;
  playwrightS: number;
  outsideS: number;
  passed: number;
  failed: number;
  skipped: number;
}

export function benchSuite(extraArgs: readonly string[] = []): SuiteResult {
  const output = mkdtempSync(join(tmpdir(), 'bench-suite-'));
  try {
    const started = process.hrtime.bigint();
    const r = spawnSync(process.execPath, [`${ROOT}dist/cli/main.js`, 'run', '--reporter', 'dot,json', '--output', output, ...extraArgs], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const wallS = Number(process.hrtime.bigint() - started) / 1e9;
    if (r.status !== 0) throw new Error(`the embedded run exited with ${r.status}: ${r.stderr.toString().slice(-400)}`);
    const report = JSON.parse(readFileSync(join(output, 'results.json'), 'utf8')) as PlaywrightJson;
    const floor = longest(report.suites);
    const playwrightS = report.stats.duration / 1000;
    return {
      wallS,
      floorS: floor.ms / 1000,
      floorCheck: floor.title,
      playwrightS,
      outsideS: wallS - playwrightS,
      passed: report.stats.expected,
      failed: report.stats.unexpected,
      skipped: report.stats.skipped,
    };
  } finally {
    rmSync(output, { recursive: true, force: true });
  }
}
