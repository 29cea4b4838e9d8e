// The run plan of `report merge` (conformance/engine/runner/plan.ts): Playwright's merge-reports replays the shards'
// results through the suite's reporters, which read the run's facts (target, level, seed, selection) from the plan, as
// the shards' own conformance reports state them.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunPlan } from '../conformance/engine/runner/plan.js';
import { FIXTURE_PROFILE } from '../reference/src/paths.js';

/** What the shards' own conformance reports say about the run: the merged matrix says the same. */
export function mergePlanOf(dirs: readonly string[], o: { output: string; reporters: readonly string[] }): RunPlan {
  const file = dirs.map((d) => join(d, 'conformance-report.json')).find((f) => existsSync(f));
  const r = (file ? JSON.parse(readFileSync(file, 'utf8')) : {}) as {
    target?: string | null;
    level?: 'spec' | 'reference';
    seed?: number;
    strict?: boolean;
    targetKind?: 'embedded' | 'external';
    partialSelection?: boolean;
    selectedClauses?: string[];
  };
  const kind = r.targetKind ?? 'external';
  return {
    target: { ...(r.target ? { baseUrl: r.target } : {}), profilePath: FIXTURE_PROFILE, kind, insecure: false },
    level: r.level ?? 'spec',
    strict: r.strict ?? false,
    seed: r.seed ?? 1,
    showSecrets: false,
    selection: {
      // Shards of a --grep or --clause selection merge into that selection, not the whole suite.
      partial: r.partialSelection ? 'part' : 'whole',
      clauses: r.selectedClauses ?? [],
      repro: false,
      // A failure's `run --repro` command names the deployment (the shards' other options are not in their reports).
      reproArgs: kind === 'external' && r.target ? `--base-url ${r.target}` : '',
    },
    workers: {},
    output: { dir: o.output, reporters: [...o.reporters] },
    variants: [],
  };
}
