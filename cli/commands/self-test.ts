// `shop-conformance self-test`: proves that the checks can fail. Each defect of the library (conformance/selftest/defects/)
// breaks one clause through a proxy in front of the target; the checks citing that clause run against the proxy, and the
// kill matrix says which of them caught it. One Playwright run: a project per defect, plus a baseline project that runs the
// same checks against the target itself (a check failing there proves nothing about a defect).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { CLAUSES, CLAUSES_BY_ID } from '../../conformance/clauses/index.js';
import { listChecks, PLAYWRIGHT_CONFIG } from '../../conformance/engine/list.js';
import { ENV, readProfileFile, type TargetVariant } from '../../conformance/engine/params.js';
import type { Defect } from '../../conformance/selftest/defect.js';
import { rulesOf } from '../../conformance/selftest/defect.js';
import { DEFECTS } from '../../conformance/selftest/defects/index.js';
import { BASELINE, formatKillMatrix, killMatrix, killMatrixHtml, summarizeKills, type CheckRun } from '../../conformance/selftest/matrix.js';
import { startProxy, type Proxy } from '../../conformance/selftest/proxy.js';
import { FIXTURE_PROFILE } from '../../reference/src/paths.js';
import { EXIT } from '../exit.js';
import { startEmbedded } from './run.js';

const require = createRequire(import.meta.url);

export interface SelfTestOptions {
  baseUrl?: string;
  profile: string;
  level: 'spec' | 'reference';
  defect?: string[];
  clause?: string[];
  workers?: string;
  output: string;
  list: boolean;
}

type Io = { out: (s: string) => void; err: (s: string) => void };

/** The clauses a check may cite to judge a defect's clause: the clause and its repetitions either way. */
function requirementOf(clause: string): Set<string> {
  const ids = new Set([clause, ...(CLAUSES_BY_ID.get(clause)?.repeats ?? [])]);
  for (const c of CLAUSES) if (c.repeats?.includes(clause)) ids.add(c.id);
  return ids;
}

function select(o: SelfTestOptions): Defect[] | string {
  const unknown = [...(o.defect ?? []).filter((id) => !DEFECTS.some((d) => d.id === id)), ...(o.clause ?? []).filter((c) => !CLAUSES_BY_ID.has(c))];
  if (unknown.length > 0) return `unknown defect or clause: ${unknown.join(', ')}`;
  return DEFECTS.filter((d) => (!o.defect?.length || o.defect.includes(d.id)) && (!o.clause?.length || o.clause.includes(d.clause)));
}

interface JsonSuite { suites?: JsonSuite[]; specs?: { tests: JsonTest[] }[] }
interface JsonTest {
  projectName: string;
  annotations: { type: string; description?: string }[];
  results: { status: string; annotations?: { type: string; description?: string }[] }[];
}

/** Every check run of Playwright's JSON report, with its project and the clauses its failures named. */
export function checkRuns(report: { suites: JsonSuite[] }): CheckRun[] {
  const runs: CheckRun[] = [];
  const walk = (s: JsonSuite) => {
    for (const spec of s.specs ?? []) {
      for (const t of spec.tests) {
        const result = t.results[t.results.length - 1];
        const annotations = [...t.annotations, ...(result?.annotations ?? [])];
        const check = annotations.find((a) => a.type === 'check')?.description ?? '';
        const failedClauses = annotations.filter((a) => a.type === 'failed-clause').map((a) => a.description ?? '');
        const failure = annotations.find((a) => a.type === 'selftest-failure' || a.type === 'warning')?.description;
        const status = !result || result.status === 'skipped' ? 'skipped' : failedClauses.length > 0 || result.status !== 'passed' ? 'failed' : 'passed';
        runs.push({ project: t.projectName, check, status, failedClauses, ...(failure ? { message: failure } : {}) });
      }
    }
    (s.suites ?? []).forEach(walk);
  };
  report.suites.forEach(walk);
  return runs;
}

export async function selfTest(o: SelfTestOptions, io: Io): Promise<number> {
  const chosen = select(o);
  if (typeof chosen === 'string') {
    io.err(`shop-conformance self-test: ${chosen}\n`);
    return EXIT.usage;
  }
  if (o.list) {
    for (const d of chosen) io.out(`${d.id.padEnd(40)} ${d.clause.padEnd(20)} ${d.breaks}\n`);
    return EXIT.ok;
  }
  const profilePath = resolve(o.profile);
  let profile;
  try {
    profile = readProfileFile(profilePath);
  } catch (err) {
    io.err(`shop-conformance self-test: invalid profile ${profilePath}: ${(err as Error).message.split('\n')[0]}\n`);
    return EXIT.usage;
  }
  const checks = (await listChecks()).filter((c) => o.level === 'reference' || c.level === 'spec');
  const checksOf = new Map(chosen.map((d) => {
    const clauses = requirementOf(d.clause);
    return [d.id, checks.filter((c) => c.clauses.some((id) => clauses.has(id))).map((c) => c.id)];
  }));
  const involved = [...new Set([...checksOf.values()].flat())];

  const output = resolve(o.output);
  const work = join(output, 'selftest');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  let embedded: Awaited<ReturnType<typeof startEmbedded>> | undefined;
  const proxies: Proxy[] = [];
  try {
    let target = o.baseUrl;
    if (!target) {
      embedded = await startEmbedded(profilePath);
      target = embedded.server.url;
      io.err(`embedded reference listening on ${target}\n`);
    }
    const variants: TargetVariant[] = involved.length ? [{ name: BASELINE, baseUrl: target, profilePath, checks: involved }] : [];
    for (const d of chosen) {
      const mine = checksOf.get(d.id)!;
      if (mine.length === 0) continue;
      const proxy = await startProxy(target, rulesOf(d, profile));
      proxies.push(proxy);
      variants.push({ name: d.id, baseUrl: proxy.url, profilePath, checks: mine });
    }
    io.err(`self-test: ${chosen.length} defects, ${involved.length} checks, ${variants.length} projects\n`);
    const args = [require.resolve('@playwright/test/cli'), 'test', '--config', PLAYWRIGHT_CONFIG, '--workers', o.workers ?? String(Math.max(2, availableParallelism()))];
    const env = {
      ...process.env,
      [ENV.baseUrl]: target,
      [ENV.profile]: profilePath,
      [ENV.level]: o.level,
      [ENV.output]: work,
      [ENV.reporters]: 'dot,json',
      [ENV.target]: embedded ? 'embedded' : 'external',
      [ENV.partial]: '1',
      [ENV.selftest]: '1',
      [ENV.variants]: JSON.stringify(variants),
      FORCE_COLOR: process.env.FORCE_COLOR ?? '0',
    };
    if (variants.length > 0) {
      await new Promise<number>((done) => {
        // Playwright's own console output (dots) goes to stderr: stdout is the matrix.
        const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
        child.stdout.on('data', (d: Buffer) => io.err(d.toString()));
        child.once('exit', (c) => done(c ?? 1));
      });
    }
    const resultsFile = join(work, 'results.json');
    const runs = variants.length > 0 && existsSync(resultsFile) ? checkRuns(JSON.parse(readFileSync(resultsFile, 'utf8')) as { suites: JsonSuite[] }) : [];
    if (variants.length > 0 && runs.length === 0) {
      io.err(`shop-conformance self-test: Playwright wrote no results (${resultsFile})\n`);
      return EXIT.failed;
    }
    const outcomes = killMatrix(chosen, checksOf, runs, CLAUSES_BY_ID);
    const summary = summarizeKills(outcomes, CLAUSES);
    writeFileSync(join(output, 'selftest-report.json'), JSON.stringify({ summary, defects: outcomes }, null, 2) + '\n');
    writeFileSync(join(output, 'selftest.html'), killMatrixHtml(outcomes, summary));
    io.out(`\nKill matrix (${o.level} level):\n${formatKillMatrix(outcomes, Math.max(100, process.stdout.columns ?? 120))}\n\n`);
    io.out(
      `  defects: ${summary.killed} killed, ${summary.survived} survived, ${summary.inconclusive} inconclusive, ${summary.noChecks} without checks` +
        ` (kill rate ${(summary.killRate * 100).toFixed(1)}%)\n` +
        `  clauses without a defect: ${summary.uncoveredClauses.length} of ${CLAUSES.filter((c) => !c.notTestable && !c.repeats).length} testable\n` +
        `  report:  ${join(output, 'selftest-report.json')}\n  html:    ${join(output, 'selftest.html')}\n`,
    );
    return summary.survived > 0 ? EXIT.failed : EXIT.ok;
  } finally {
    await Promise.all(proxies.map((p) => p.close()));
    if (embedded) {
      await embedded.server.close();
      rmSync(embedded.dir, { recursive: true, force: true });
    }
  }
}

export function addSelfTestCommand(program: Command): void {
  program
    .command('self-test')
    .description('Prove the checks can fail: apply each defect of the library (a proxy breaking one clause) and print the kill matrix.')
    .option('--base-url <url>', 'the deployment to put the defects in front of; without it the embedded reference is started')
    .option('--profile <file>', 'profile the deployment shares with the suite', FIXTURE_PROFILE)
    .option('--level <level>', 'spec: the spec-level checks; reference: also the reference-level ones', 'spec')
    .option('--defect <id...>', 'only these defects')
    .option('--clause <id...>', 'only the defects of these clauses')
    .option('--workers <n>', 'parallel workers (default: the number of cores, at least 2)')
    .option('--output <dir>', 'where selftest-report.json and selftest.html go', 'conformance-output')
    .option('--list', 'list the defects without running them')
    .action(async (opts: SelfTestOptions) => {
      if (opts.level !== 'spec' && opts.level !== 'reference') {
        process.stderr.write(`shop-conformance self-test: --level: spec or reference, not ${String(opts.level)}\n`);
        process.exit(EXIT.usage);
      }
      if (opts.workers !== undefined && !/^[1-9]\d*$/.test(opts.workers)) {
        process.stderr.write(`shop-conformance self-test: --workers: a positive integer, not ${opts.workers}\n`);
        process.exit(EXIT.usage);
      }
      process.exitCode = await selfTest(opts, { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s) });
    });
}
