// `self-test --scoped`: which narrowed variants (conformance/selftest/scoped.ts) join the run. `all` derives every variant
// of the selected defects (the full matrix, `npm run bench`); `sample` picks `--sample` of them with `--seed` (printed),
// and runs them with their broad defects only.
import { z } from 'zod';
import { DOMAINS_BY_CLAUSE } from '../../contract/clauses/domains.js';
import type { Defect } from '../../conformance/selftest/defects/index.js';
import type { Outcome } from '../../conformance/selftest/matrix.js';
import { isBaseline } from '../../conformance/selftest/plan.js';
import { deriveVariants, markUnreached, reachingChecks, sampleVariants } from '../../conformance/selftest/scoped.js';

const count = z.string().regex(/^[1-9]\d*$/, 'a positive whole number');

export const scopedOptions = {
  scoped: z.enum(['none', 'sample', 'all']).optional(),
  sample: count.optional(),
  seed: z.string().regex(/^\d+$/, 'a whole number').optional(),
};

export interface ScopedOptions {
  scoped?: 'none' | 'sample' | 'all';
  sample?: string;
  seed?: string;
}

type Io = { out: (s: string) => void; err: (s: string) => void };

export const DEFAULT_SAMPLE = 40;

/** Every narrowed variant of these defects, in library order. */
export const variantsOf = (defects: readonly Defect[]): Defect[] => defects.flatMap((d) => deriveVariants(d));

/** The defects the run judges with --scoped: the selection and its variants, or a seeded sample with its broad defects. */
export function scopeSelection(defects: readonly Defect[], o: ScopedOptions, io: Io): Defect[] {
  if (!o.scoped || o.scoped === 'none') return [...defects];
  const variants = variantsOf(defects);
  if (o.scoped === 'all') {
    io.err(`self-test: --scoped all: ${variants.length} narrowed variant(s) of ${defects.length} defect(s)\n`);
    return [...defects, ...variants];
  }
  const n = Number(o.sample ?? DEFAULT_SAMPLE);
  const seed = Number(o.seed ?? 1);
  const picked = sampleVariants(variants, n, seed);
  const broad = new Set(picked.map((v) => v.scope!.of));
  io.err(
    `self-test: --scoped sample: ${picked.length} of ${variants.length} narrowed variant(s), seed ${seed}, with ${broad.size} broad defect(s)\n`,
  );
  return [...defects.filter((d) => broad.has(d.id)), ...picked];
}

/** `--list --scoped`: each defect, its variants' cells, and the clauses without a declared domain. */
export function listScoped(defects: readonly Defect[], o: ScopedOptions, io: Io): number {
  const selected = new Set(scopeSelection(defects, o, { out: () => undefined, err: () => undefined }).map((d) => d.id));
  let total = 0;
  for (const d of defects) {
    const variants = deriveVariants(d).filter((v) => selected.has(v.id));
    const why = !DOMAINS_BY_CLAUSE.has(d.clause)
      ? 'no variants: the clause has no declared domain'
      : d.configure
        ? 'no variants: a configuration defect (nothing on the wire to narrow)'
        : variants.length === 0
          ? o.scoped === 'sample'
            ? 'no variant in the sample'
            : 'no variants: a request repair cannot be narrowed to an answer-side cell'
          : `${variants.length} variant(s): ${variants.map((v) => v.scope!.cell).join(' ')}`;
    io.out(`${d.id}\t${d.clause}\t${d.kind}\t${why}\n`);
    total += variants.length;
  }
  io.out(`${total} narrowed variant(s) of ${defects.length} defect(s)\n`);
  return 0;
}

/**
 * Screening before the run: the checks of the variants' clauses run once against the target (a baseline of their own,
 * `run`), recording the cells their exchanges fall in; each variant then runs only the checks that reached its cell, and
 * a variant no check reaches is not run at all (it survives, unreached). Its outcomes are the run's baseline for those
 * clauses. Undefined when there is no variant.
 */
export async function screenVariants(
  defects: readonly Defect[],
  run: (clauses: string[]) => Promise<Outcome[]>,
  io: Io,
): Promise<{ reaching: Map<string, string[]>; clauses: string[]; baseline: Outcome[] } | undefined> {
  const variants = defects.filter((d) => d.scope);
  if (variants.length === 0) return undefined;
  const started = Date.now();
  const clauses = [...new Set(variants.map((v) => v.clause))];
  const outcomes = (await run(clauses)).filter((x) => isBaseline(x.project));
  const reaching = reachingChecks(variants, outcomes);
  const unreached = variants.filter((v) => reaching.get(v.id)?.length === 0);
  for (const v of unreached) markUnreached(v.id);
  io.err(
    `self-test: screening (${((Date.now() - started) / 1000).toFixed(0)} s): ${variants.length - unreached.length} variant(s) reached by a check, ` +
      `${unreached.length} reached by none (not run: survivors unreached)\n`,
  );
  // The screening is the baseline of its clauses for the run that follows (a check failing there kills nothing).
  return { reaching, clauses, baseline: outcomes };
}
