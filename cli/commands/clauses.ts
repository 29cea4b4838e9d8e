// `shop-conformance clauses`: the clause catalogue with coverage (which checks enforce each clause); `--coverage`, the
// domain coverage of the last run (which cells of each clause's domain its checks tried); `--show ID`, one clause followed
// through the code: the reference's citations of it, its checks and the self-test's defects that break it.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { Command } from 'commander';
import { CLAUSES, CLAUSES_BY_ID, type Clause, type SpecPart } from '../../contract/clauses/index.js';
import { DOMAINS_BY_CLAUSE } from '../../contract/clauses/domains.js';
import { PENDING } from '../../contract/clauses/pending.js';
import { formatCoverage, untriedMust, type ClauseCoverage } from '../../conformance/engine/report/coverage.js';
import { listChecks, PLAYWRIGHT_CONFIG } from '../../conformance/engine/runner/list.js';
import { PACKAGE_ROOT } from '../../reference/src/paths.js';
import { scanExplore, scanReference, type Citation } from '../clause-citations.js';
import { EVERY_RESPONSE_CLAUSES } from '../../conformance/lib/expect/every-response.js';
import { EXIT } from '../exit.js';

/** The domain coverage of a run's report (a directory holding conformance-report.json, or the file); one-line errors. */
export function readDomainCoverage(at: string): ClauseCoverage[] {
  const path = existsSync(at) && statSync(at).isDirectory() ? join(at, 'conformance-report.json') : at;
  if (!existsSync(path)) throw new Error(`--report: no report at ${path} (run \`shop-conformance run\` first, or name its --output)`);
  let report: { domainCoverage?: ClauseCoverage[] };
  try {
    report = JSON.parse(readFileSync(path, 'utf8')) as typeof report;
  } catch {
    throw new Error(`--report: ${path} is not a JSON report`);
  }
  if (!Array.isArray(report.domainCoverage)) throw new Error(`--report: ${path} holds no domainCoverage (a report of an older suite)`);
  return report.domainCoverage;
}

function printCoverage(o: { report: string; json: boolean; part?: string }): number {
  let rows: ClauseCoverage[];
  try {
    rows = readDomainCoverage(resolve(o.report));
  } catch (err) {
    process.stderr.write(`shop-conformance clauses: ${(err as Error).message}\n`);
    return EXIT.usage;
  }
  const parts = new Map(CLAUSES.map((c) => [c.id, c.part]));
  rows = rows.filter((r) => !o.part || parts.get(r.clause) === o.part);
  if (o.json) {
    process.stdout.write(JSON.stringify({ domainCoverage: rows }, null, 2) + '\n');
    return EXIT.ok;
  }
  process.stdout.write(`Domain coverage (${resolve(o.report)}): per clause, the cells its checks tried and those never tried\n\n`);
  process.stdout.write(formatCoverage(rows) + '\n');
  const without = CLAUSES.filter((c) => !c.notTestable && !DOMAINS_BY_CLAUSE.has(c.id) && (!o.part || c.part === o.part)).length;
  const gaps = untriedMust(rows);
  process.stdout.write(
    `\n${rows.length} clauses with a declared domain (${without} testable clauses without one: no cells to judge); ` +
      `MUST clauses with untried cells: ${gaps.length}${gaps.length ? ` (${gaps.map((r) => r.clause).join(' ')})` : ''}\n`,
  );
  return EXIT.ok;
}

/** Everything that leads from one clause to the code: its citations in the reference, its checks, its defects. */
export interface ClauseTrail {
  clause: Clause;
  /** The clauses that repeat this one (aliases whose verdict follows its checks). */
  repeatedBy: string[];
  reference: { dir: string; compiled: boolean; citations: Citation[] } | null;
  /**
   * What `explore` judges of the clause: the places of its own code that name it, and whether every answer it gets is
   * judged on the clause (the every-response rules of lib/expect/every-response.ts, which its model applies).
   */
  explore: { dir: string; places: Citation[]; everyAnswer: boolean } | null;
  checks: { id: string; level: 'spec' | 'reference'; file: string; line: number }[];
  defects: { id: string; kind: string; description: string; referenceOnly?: string; scopedVariants: number }[];
}

/** The trail of clause `id`; undefined when the catalogue has no such clause. Lists the checks through Playwright. */
export async function followClause(id: string, root: string = PACKAGE_ROOT): Promise<ClauseTrail | undefined> {
  const clause = CLAUSES_BY_ID.get(id);
  if (!clause) return undefined;
  // The defect library is loaded only here: the other forms of the command need none of it.
  const [{ DEFECTS }, { deriveVariants }] = await Promise.all([
    import('../../conformance/selftest/defects/index.js'),
    import('../../conformance/selftest/scoped.js'),
  ]);
  const scanned = scanReference(root);
  const explored = scanExplore(root);
  const checksDir = join(dirname(PLAYWRIGHT_CONFIG), 'checks');
  const checks = (await listChecks())
    .filter((k) => k.clauses.includes(id))
    .map((k) => ({ id: k.id, level: k.level, file: relative(root, join(checksDir, k.file)).split(sep).join('/'), line: k.line }));
  return {
    clause,
    repeatedBy: CLAUSES.filter((c) => c.repeats?.includes(id)).map((c) => c.id),
    reference: scanned ? { ...scanned, citations: scanned.citations.filter((c) => c.id === id) } : null,
    explore: explored
      ? {
          dir: explored.dir,
          places: explored.citations.filter((c) => c.id === id),
          everyAnswer: (EVERY_RESPONSE_CLAUSES as readonly string[]).includes(id),
        }
      : null,
    checks,
    defects: DEFECTS.filter((d) => d.clause === id).map((d) => ({
      id: d.id,
      kind: d.kind,
      description: d.description,
      ...(d.referenceOnly ? { referenceOnly: d.referenceOnly } : {}),
      scopedVariants: deriveVariants(d).length,
    })),
  };
}

function printTrail(t: ClauseTrail): void {
  process.stdout.write(formatTrail(t).join('\n') + '\n');
}

/** The lines `clauses --show` prints (docs/cli.md shows them, generated by scripts/gen-docs.ts). */
export function formatTrail(t: ClauseTrail): string[] {
  const lines: string[] = [];
  const out = (line = '') => lines.push(line);
  const c = t.clause;
  out(`${c.id}  ${c.severity}  ${c.section}`);
  out(`  ${c.text}`);
  if (c.repeats?.length) out(`  repeats ${c.repeats.join(', ')}: its verdict follows their checks too`);
  if (t.repeatedBy.length) out(`  repeated by ${t.repeatedBy.join(', ')}`);
  if (c.notTestable) out(`  not testable: ${c.notTestable}`);
  if (PENDING[c.id]) out(`  pending: ${PENDING[c.id]}`);
  out();
  if (!t.reference) out('Reference: no reference sources in this installation');
  else {
    const cites = t.reference.citations;
    const where = t.reference.compiled ? `${t.reference.dir}, compiled: lines of the .js files` : t.reference.dir;
    out(`Reference (${cites.length} citation${cites.length === 1 ? '' : 's'} in ${where}):`);
    for (const r of cites) out(`  ${r.file}:${r.line}  ${r.text}`);
  }
  out();
  if (!t.explore) out('Explore: no explore sources in this installation');
  else {
    const { places, everyAnswer } = t.explore;
    const judged = places.length === 0 && !everyAnswer ? ': not judged by explore' : ':';
    out(
      `Explore (${places.length} place${places.length === 1 ? '' : 's'} in ${t.explore.dir}${everyAnswer ? '; and every answer' : ''})${judged}`,
    );
    if (everyAnswer) out('  every answer explore gets is judged on it (lib/expect/every-response.ts, through its model)');
    for (const p of places) out(`  ${p.file}:${p.line}  ${p.text.length > 110 ? `${p.text.slice(0, 110)}…` : p.text}`);
  }
  out();
  out(`Checks (${t.checks.length}):`);
  for (const k of t.checks) out(`  ${k.id.padEnd(60)} ${k.level.padEnd(9)} ${k.file}:${k.line}`);
  out();
  const variants = t.defects.reduce((n, d) => n + d.scopedVariants, 0);
  out(`Defects (${t.defects.length}${variants ? `, ${variants} scoped variants` : ''}; self-test --clause ${c.id}):`);
  for (const d of t.defects) {
    const scoped = d.scopedVariants ? `, ${d.scopedVariants} scoped` : '';
    out(`  ${d.id}  (${d.kind}${d.referenceOnly ? ', reference level only' : ''}${scoped})  ${d.description}`);
  }
  return lines;
}

async function showClause(id: string, json: boolean): Promise<number> {
  const trail = await followClause(id);
  if (!trail) {
    process.stderr.write(`shop-conformance clauses: --show: no clause ${id} in the catalogue\n`);
    return EXIT.usage;
  }
  if (json) process.stdout.write(JSON.stringify(trail, null, 2) + '\n');
  else printTrail(trail);
  return EXIT.ok;
}

export function addClausesCommand(program: Command): void {
  program
    .command('clauses')
    .description('Print every clause of the spec with its severity and the checks that cover it.')
    .option('--json', 'print JSON instead of a table', false)
    .option(
      '--part <part>',
      'only one part of the spec (purpose, resources, states, endpoints, authentication, events, errors, limits, versioning)',
    )
    .option('--uncovered', 'only clauses without a check', false)
    .option('--coverage', "the last run's domain coverage: per clause, the cells its checks tried and those never tried", false)
    .option('--report <path>', 'with --coverage: the run report (its --output directory or conformance-report.json)', 'conformance-output')
    .option(
      '--show <id>',
      'one clause followed through the code: the reference lines that cite it, what explore judges of it, its checks and its defects',
    )
    .addHelpText(
      'after',
      `
Examples:
  $ shop-conformance clauses
  $ shop-conformance clauses --part authentication --uncovered
  $ shop-conformance clauses --json > clauses.json
  $ shop-conformance clauses --coverage --report ./reports
  $ shop-conformance clauses --show AUTH-ORDER-4`,
    )
    .action(async (o: { json: boolean; part?: string; uncovered: boolean; coverage: boolean; report: string; show?: string }) => {
      if (o.show !== undefined) {
        const code = await showClause(o.show, o.json);
        if (code !== EXIT.ok) process.exit(code);
        return;
      }
      const parts = new Set(CLAUSES.map((c) => c.part));
      if (o.part && !parts.has(o.part as SpecPart)) {
        process.stderr.write(`shop-conformance clauses: --part must be one of ${[...parts].join(', ')}\n`);
        process.exit(EXIT.usage);
      }
      if (o.coverage) {
        const code = printCoverage(o);
        if (code !== EXIT.ok) process.exit(code);
        return;
      }
      const checks = await listChecks();
      const rows = CLAUSES.filter((c) => !o.part || c.part === o.part)
        .map((c) => {
          const covering = checks.filter((k) => k.clauses.includes(c.id));
          const coverage = covering.length > 0 ? 'covered' : c.notTestable ? 'not-testable' : PENDING[c.id] ? 'pending' : 'uncovered';
          return {
            ...c,
            coverage,
            checks: covering.map((k) => ({ id: k.id, level: k.level })),
            ...(PENDING[c.id] ? { pending: PENDING[c.id] } : {}),
          };
        })
        .filter((r) => !o.uncovered || r.coverage !== 'covered');
      if (o.json) {
        process.stdout.write(JSON.stringify({ clauses: rows, checks: checks.length }, null, 2) + '\n');
        return;
      }
      let part = '';
      for (const r of rows) {
        if (r.part !== part) {
          part = r.part;
          process.stdout.write(`\n${part.toUpperCase()}\n`);
        }
        const cov = r.coverage === 'covered' ? `${r.checks.length} check${r.checks.length > 1 ? 's' : ''}` : r.coverage;
        process.stdout.write(`  ${r.id.padEnd(30)} ${r.severity.padEnd(6)} ${cov.padEnd(13)} ${r.text}\n`);
        if (r.coverage === 'not-testable') process.stdout.write(`  ${''.padEnd(51)}why: ${r.notTestable}\n`);
      }
      const count = (k: string) => rows.filter((r) => r.coverage === k).length;
      process.stdout.write(
        `\n${rows.length} clauses: ${count('covered')} covered by ${checks.length} checks, ${count('not-testable')} not testable, ${count('pending')} pending, ${count('uncovered')} uncovered\n`,
      );
    });
}
