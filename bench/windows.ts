// Section `windows` of npm run bench: the checks that depend on a time window (test/helpers/window-clauses.ts) at a
// 300 ms round trip, behind test/helpers/latency-proxy.ts. A long link must neither fail a conforming deployment (a
// window judged from the wrong clock) nor pass a deviant one: the reference and every conforming alternate (each the
// reference behind its rules proxy, the latency proxy in front) must pass `run --clause <window clauses>`, and
// `self-test --clause <window clauses>` at the spec and the reference level must kill every defect (known survivors of
// conformance/selftest/known-survivors.ts are named as such, not counted).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../reference/src/server.js';
import { loadConfig } from '../reference/src/config.js';
import { startLatencyProxy } from '../test/helpers/latency-proxy.js';
import { startProxy, type ProxyRules } from '../test/helpers/mutating-proxy.js';
import { rotatingProfilePath } from '../test/helpers/reference.js';
import { freePort } from '../test/helpers/free-port.js';
import { cli, tryReport } from '../test/helpers/cli.js';
import { ALTERNATES } from '../test/helpers/alternates.js';
import { BLIND_ALTERNATES } from '../test/helpers/blind-alternates.js';
import { DESCRIBED_ALTERNATES } from '../test/helpers/described-alternates.js';
import { CREDENTIAL_CONVENTIONS, credentialFormats } from '../test/helpers/credential-alternate.js';
import { WINDOW_CLAUSE_IDS } from '../test/helpers/window-clauses.js';
import type { Profile } from '../contract/profile.js';

export const WINDOWS_ROUND_TRIP_MS = 300;
/** Alternates run at a time: each run mostly waits on the link, and the machine has two cores shared with others. */
const CONCURRENCY = 3;
const RUN_TIMEOUT_MS = 900_000;

/** A deployment to judge: the reference behind `rules`, served under `basePath`, declared by `profile`. */
interface Target {
  name: string;
  rules: ProxyRules;
  basePath?: string;
  profile?: (p: Profile) => Profile;
  /** The deployment's own profile (its configuration), shared with the run: default the rotating fixture profile. */
  configured?: (p: Profile) => Profile;
}

/** Every conforming alternate, as its own test file starts it. */
export function conformingTargets(): Target[] {
  return [
    ...ALTERNATES.map((a) => ({ name: a.name, rules: a.rules })),
    ...BLIND_ALTERNATES.map((a) => ({
      name: a.name,
      rules: a.rules,
      ...(a.basePath ? { basePath: a.basePath } : {}),
      ...(a.profile ? { profile: a.profile } : {}),
    })),
    ...DESCRIBED_ALTERNATES.map((a) => ({ name: a.name, rules: a.rules })),
    {
      name: credentialFormats.name,
      rules: credentialFormats.rules,
      profile: (p: Profile) => ({ ...p, conventions: CREDENTIAL_CONVENTIONS }),
    },
  ];
}

/**
 * The reference (fresh in-memory database, the rotating fixture profile) behind the target's rules proxy, the latency
 * proxy in front of both: the base URL a far-away user runs against, and the profile file to give the run. The public
 * base URL of a deployment under a path is the latency proxy's, as a user reaches it.
 */
async function deploy<T>(target: Target, roundTripMs: number, body: (baseUrl: string, profile: string) => Promise<T>): Promise<T> {
  const rulesPort = await freePort();
  const latency = await startLatencyProxy(`http://127.0.0.1:${rulesPort}`, roundTripMs);
  const dir = mkdtempSync(join(tmpdir(), 'bench-windows-profile-'));
  const write = (name: string, edit: (p: Profile) => Profile, from: string) => {
    const file = join(dir, name);
    writeFileSync(file, JSON.stringify(edit(JSON.parse(readFileSync(from, 'utf8')) as Profile)));
    return file;
  };
  const base = target.configured ? write('configured.json', target.configured, rotatingProfilePath()) : rotatingProfilePath();
  const reference = await startServer(
    loadConfig({
      env: {},
      profilePath: base,
      overrides: {
        port: 0,
        databasePath: ':memory:',
        logLevel: 'silent',
        ...(target.basePath ? { publicBaseUrl: `${latency.url}${target.basePath}` } : {}),
      },
    }),
  );
  const listening = `http://127.0.0.1:${(reference.server.address() as { port: number }).port}`;
  const rules = await startProxy(listening, target.rules, rulesPort);
  const profile = target.profile ? write('profile.json', target.profile, base) : base;
  try {
    return await body(`${latency.url}${target.basePath ?? ''}`, profile);
  } finally {
    await latency.close();
    await rules.close();
    await reference.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface WindowsRun {
  name: string;
  wallS: number;
  exit: number | null;
  passed: number;
  /** The first failed or warned check with its reason, or the output's tail when the run left no report. */
  firstFailure?: string;
}

/** `run --clause <window clauses>` (spec level) against the target at the round trip. */
export function runWindows(target: Target, roundTripMs = WINDOWS_ROUND_TRIP_MS): Promise<WindowsRun> {
  return deploy(target, roundTripMs, async (baseUrl, profile) => {
    const output = mkdtempSync(join(tmpdir(), 'bench-windows-'));
    try {
      const args = ['run', '--base-url', baseUrl, '--profile', profile, '--level', 'spec', '--clause', ...WINDOW_CLAUSE_IDS];
      const r = await cli([...args, '--reporter', 'dot', '--output', output], RUN_TIMEOUT_MS);
      const report = tryReport(output);
      const bad = report?.checks.find((c) => c.status === 'failed' || c.status === 'warning');
      const firstFailure = bad
        ? `${bad.status} [${bad.id}] ${(bad.reason ?? '').split('\n')[0]!.slice(0, 300)}`
        : r.code === 0
          ? undefined
          : (r.out.trim().split('\n').at(-1) ?? '').slice(0, 300);
      return {
        name: target.name,
        wallS: r.ms / 1000,
        exit: r.code,
        passed: report?.checks.filter((c) => c.status === 'passed').length ?? 0,
        ...(firstFailure === undefined ? {} : { firstFailure }),
      };
    } finally {
      rmSync(output, { recursive: true, force: true, maxRetries: 3 });
    }
  });
}

export interface WindowsSelfTest {
  level: string;
  wallS: number;
  exit: number | null;
  defects: number;
  killed: number;
  survived: string[];
  known: string[];
  unjudged: string[];
}

/**
 * The self-test's parts: one deployment cannot show both sides of the previous guest key's deadline (its checks skip the
 * side the deployment's clock has not reached), so the clauses of the passed deadline go against a reference configured
 * with a deadline an hour ago; the rest against the reference in its rotation (deadline 29 days ahead).
 */
interface SelfTestPart {
  title: string;
  clauses: readonly string[];
  configured?: (p: Profile) => Profile;
}
const AFTER_DEADLINE = ['AUTH-GUEST-7', 'AUTH-GUEST-14'];
export const SELF_TEST_PARTS: readonly SelfTestPart[] = [
  { title: 'window clauses', clauses: WINDOW_CLAUSE_IDS.filter((id) => !AFTER_DEADLINE.includes(id)) },
  {
    title: 'previous guest key past its deadline',
    clauses: AFTER_DEADLINE,
    configured: (p) => ({
      ...p,
      secrets: { ...p.secrets, guestSessionKeyPreviousUntil: new Date(Date.now() - 3_600_000).toISOString() },
    }),
  },
];

/** `self-test --clause <the part's clauses>` at the level against the reference at the round trip. */
export function selfTestWindows(
  level: 'spec' | 'reference',
  part: SelfTestPart,
  roundTripMs = WINDOWS_ROUND_TRIP_MS,
): Promise<WindowsSelfTest> {
  const target: Target = { name: 'reference', rules: {}, ...(part.configured ? { configured: part.configured } : {}) };
  return deploy(target, roundTripMs, async (baseUrl, profile) => {
    const output = mkdtempSync(join(tmpdir(), 'bench-windows-selftest-'));
    try {
      const args = ['self-test', '--base-url', baseUrl, '--profile', profile, '--level', level, '--clause', ...part.clauses];
      const r = await cli([...args, '--output', output], RUN_TIMEOUT_MS * 2);
      const m = JSON.parse(readFileSync(join(output, 'self-test.json'), 'utf8')) as {
        summary: { defects: number; killed: number };
        defects: { id: string; verdict: string; known?: string }[];
      };
      const of = (verdict: string, known: boolean) =>
        m.defects.filter((d) => d.verdict === verdict && (d.known !== undefined) === known).map((d) => d.id);
      return {
        level,
        wallS: r.ms / 1000,
        exit: r.code,
        defects: m.summary.defects,
        killed: m.summary.killed,
        survived: of('survived', false),
        known: of('survived', true),
        unjudged: m.defects.filter((d) => d.verdict === 'unjudged').map((d) => d.id),
      };
    } finally {
      rmSync(output, { recursive: true, force: true, maxRetries: 3 });
    }
  });
}

/** Runs `work` over `items`, `limit` at a time, results in the items' order. */
async function pool<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

/** Prints the section: the reference, every conforming alternate, and the self-test, each at 300 ms. */
export async function benchWindows(line: (s: string) => void, verdict: (ok: boolean) => string): Promise<void> {
  const rtt = WINDOWS_ROUND_TRIP_MS;
  line(`\n== Time-window checks at ${rtt} ms round trip (latency proxy; clauses of test/helpers/window-clauses.ts)`);
  line(`   (targets: the reference and every conforming alternate pass; the self-test kills every defect)`);
  line(`   clauses: ${WINDOW_CLAUSE_IDS.join(' ')}`);
  const started = process.hrtime.bigint();
  const elapsed = () => Number(process.hrtime.bigint() - started) / 1e9;
  const fail = (name: string) => (err: unknown) => ({ name, wallS: 0, exit: null, passed: 0, firstFailure: (err as Error).message });

  const reference = await runWindows({ name: 'reference', rules: {} }).catch(fail('reference'));
  line(
    `   reference: ${reference.passed} checks passed in ${reference.wallS.toFixed(0)} s (exit ${reference.exit})  ${verdict(reference.exit === 0)}`,
  );
  if (reference.firstFailure) line(`     first failure: ${reference.firstFailure}`);

  const targets = conformingTargets();
  const alternatesStarted = elapsed();
  const runs = await pool(targets, CONCURRENCY, async (t) => {
    const r = await runWindows(t).catch(fail(t.name));
    line(`     ${r.exit === 0 ? 'pass' : 'FAIL'} ${r.name}: ${r.passed} checks passed in ${r.wallS.toFixed(0)} s`);
    return r;
  });
  const failed = runs.filter((r) => r.exit !== 0);
  const slowest = runs.reduce((a, b) => (b.wallS > a.wallS ? b : a), runs[0]!);
  line(
    `   conforming alternates: ${runs.length - failed.length} of ${runs.length} passed in ${(elapsed() - alternatesStarted).toFixed(0)} s (${CONCURRENCY} at a time; slowest ${slowest.name} ${slowest.wallS.toFixed(0)} s)  ${verdict(failed.length === 0)}`,
  );
  for (const f of failed) line(`     ${f.name} (exit ${f.exit}): ${f.firstFailure ?? '(no failed check named)'}`);

  for (const level of ['spec', 'reference'] as const)
    for (const part of SELF_TEST_PARTS) {
      try {
        const s = await selfTestWindows(level, part);
        const ok = s.survived.length === 0 && s.exit === 0;
        line(
          `   self-test, level ${level}, ${part.title}: ${s.killed} of ${s.defects} defects killed in ${s.wallS.toFixed(0)} s (exit ${s.exit})  ${verdict(ok)}`,
        );
        if (s.survived.length) line(`     survived: ${s.survived.join(', ')}`);
        if (s.known.length) line(`     known survivors (conformance/selftest/known-survivors.ts): ${s.known.join(', ')}`);
        if (s.unjudged.length) line(`     unjudged: ${s.unjudged.join(', ')}`);
      } catch (err) {
        line(`   self-test, level ${level}, ${part.title}: ${(err as Error).message}  ${verdict(false)}`);
      }
    }
  line(`   wall ${elapsed().toFixed(0)} s for the section`);
}
