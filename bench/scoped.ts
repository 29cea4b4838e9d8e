// npm run bench -- --only scoped: the full scoped matrix against the embedded reference (every defect and every narrowed
// variant of it, conformance/selftest/scoped.ts): wall time, variants, and what survives narrowed to one cell.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface ScopedReport {
  summary: { defects: number; killed: number; survived: number; unjudged: number; knownSurvivors?: number };
  defects: { id: string; verdict: string; scope?: { of: string; cell: string }; message?: string; known?: string }[];
  notApplicable?: { id: string }[];
}

/** Runs `self-test --scoped all`; prints its figures through `line`; returns whether no unknown variant survived. */
export function benchScoped(root: string, line: (text: string) => void, verdict: (ok: boolean) => string): void {
  line('\n== Scoped self-test against the embedded reference (every defect and each of its narrowed variants; no unknown survivor)');
  const output = mkdtempSync(join(tmpdir(), 'bench-scoped-'));
  const started = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [`${root}dist/cli/main.js`, 'self-test', '--scoped', 'all', '--output', output], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const wall = Number(process.hrtime.bigint() - started) / 1e9;
  try {
    const report = JSON.parse(readFileSync(join(output, 'self-test.json'), 'utf8')) as ScopedReport;
    const variants = report.defects.filter((d) => d.scope);
    const survivors = variants.filter((d) => d.verdict !== 'killed');
    const unknown = survivors.filter((d) => d.known === undefined);
    line(
      `   wall ${wall.toFixed(0)} s for ${report.summary.defects} rows (${variants.length} variants judged, ${report.notApplicable?.length ?? 0} not applicable)`,
    );
    line(
      `   variants killed ${variants.length - survivors.length}, survived ${survivors.length} (${survivors.length - unknown.length} known)  ${verdict(unknown.length === 0 && r.status === 0)}`,
    );
    for (const d of unknown.slice(0, 30)) line(`     ${d.message ?? d.id}`);
    if (unknown.length > 30) line(`     … and ${unknown.length - 30} more (self-test.json)`);
  } catch (err) {
    line(`   the scoped self-test wrote no report (exit ${r.status}): ${(err as Error).message}  ${verdict(false)}`);
  } finally {
    rmSync(output, { recursive: true, force: true });
  }
}
