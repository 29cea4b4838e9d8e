// check(): one conformance check as a Playwright test, tagged with its clause IDs, annotated with the requirement
// sentences and severity, skipped with a reason when the profile does not claim its capability, and reported with a
// transcript of its HTTP exchanges when it fails. A SHOULD-level failure is a warning unless --strict.
import { randomUUID } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { test as base, type TestInfo } from '@playwright/test';
import type { Profile } from '../../../contract/profile.js';
import { CLAUSES_BY_ID } from '../../../contract/clauses/index.js';
import { CheckFailure, failSetup, NotDeclared, softFailures } from '../../lib/assert.js';
import { encodeRecord, recordOf } from '../report/check-record.js';
import { judge, severityOf, type Verdict } from './judge.js';
import { createMinter, type Minter } from '../../lib/mint.js';
import { newGuestSession } from '../../lib/guest-session.js';
import { ShopHttp, type ShopResponse } from '../transport/http.js';
import { parseDocument, Target } from '../transport/target.js';
import { awaitLateTarget } from './late.js';
import { runPlan } from './plan.js';
import { runParams, type RunParams } from './params.js';
import { checkPlugins, routeOf } from './plugin.js';
import { LONG_TAG } from './long-first.js';
import { exchangePoints, formatExchange, formatTranscript, redactor } from '../transport/transcript.js';
import { DESCRIPTION, ASSISTANT_DESCRIPTION } from '../../../contract/routes.js';
import { AMBIENT_CLAUSES, judgeEveryExchange } from '../transport/every-response.js';

export type Capability = keyof Profile['capabilities'];
export type Level = 'spec' | 'reference';

export interface CheckSpec {
  /** Stable check id, e.g. `auth.no-token`. */
  id: string;
  title: string;
  /** Clause IDs of contract/clauses/catalogue.ts this check enforces. */
  clauses: readonly string[];
  /** `reference`: the shape is the reference's choice where the spec says "not shown". */
  level?: Level;
  requires?: readonly Capability[];
  /**
   * The check needs data on the target (profile `data`, defaulting to the fixture seed's): skipped when the profile says
   * the deployment holds none (`data: null`); a member declared `null` skips the checks that read it (checks/_shared/seed-data.ts).
   */
  seed?: boolean;
  /**
   * Every exchange of the check with the deployment is judged on the rules of every response too (engine/transport/every-response.ts):
   * the check cites those clauses besides its own, so that the statuses, routes and codes it provokes are judged on them.
   */
  everyResponse?: boolean;
  /**
   * The check holds a worker longest at any round trip (a wait on the clock, or requests that must go in turn): it is
   * handed out at the start of a run (engine/runner/long-first.ts) and judged in the self-test's long phase.
   */
  long?: boolean;
}

export interface Shop {
  readonly params: RunParams;
  readonly profile: Profile;
  readonly docsUrl: string;
  readonly mint: Minter;
  readonly http: ShopHttp;
  /** A subject no other check uses: checks that write never share state, so workers and reruns agree. */
  subject(prefix?: string): string;
  /** A fresh, validly signed guest session (a new cart). */
  guestSession(): string;
  /** What the target's description documents (and the profile's conventions) say about the choices the spec leaves open. */
  target(): Promise<Target>;
  readonly info: TestInfo;
}

export const CHECK_IDS = new Set<string>();

// One fetch of the description documents per worker; each check that needs them parses the answers, so that a missing or
// unparsable document fails every such check on the document's clause (with the exchange in its transcript).
let documents: Promise<{ general: ShopResponse; assistant: ShopResponse }> | undefined;
let target: Target | undefined;

/** Why the documents could not be used, for the checks of this worker that need them. */
let targetFailure: unknown;

/**
 * The target as its documents describe it, for code that runs inside a check (check() loads it before the body). A
 * missing or unparsable document fails the calling check, on the document's clause, and no other.
 */
export function learned(): Target {
  if (target) return target;
  throw targetFailure ?? new Error('the description documents are loaded by check() before the body runs');
}

async function loadTarget(http: ShopHttp, profile: Profile): Promise<Target> {
  if (target) return target;
  documents ??= Promise.all([http.get(DESCRIPTION.path), http.get(ASSISTANT_DESCRIPTION.path)]).then(([general, assistant]) => ({
    general,
    assistant,
  }));
  const answers = await documents.catch((err: Error) =>
    failSetup('GET /openapi.json and /assistant/openapi.json', 'answers', err.message, { clause: 'VER-DOCS-1' }),
  );
  target = new Target(
    { general: parseDocument(DESCRIPTION.path, answers.general), assistant: parseDocument(ASSISTANT_DESCRIPTION.path, answers.assistant) },
    profile.conventions ?? {},
  );
  return target;
}

/** The documents' cache belongs to one base URL: a self-test worker may judge several defects, each behind its proxy. */
let cachedFor: string | undefined;

/** The caches of the other base URLs this worker judged lately (a self-test worker goes back and forth between them). */
const otherCaches = new Map<string, { documents: typeof documents; target: typeof target; targetFailure: unknown }>();
const OTHER_CACHES = 16;

/** Makes the documents' cache that of `baseUrl`, keeping the one it was. */
function cacheFor(baseUrl: string): void {
  if (cachedFor === baseUrl) return;
  if (cachedFor !== undefined) {
    otherCaches.set(cachedFor, { documents, target, targetFailure });
    if (otherCaches.size > OTHER_CACHES) otherCaches.delete(otherCaches.keys().next().value!);
  }
  const kept = otherCaches.get(baseUrl);
  otherCaches.delete(baseUrl);
  cachedFor = baseUrl;
  ({ documents, target, targetFailure } = kept ?? { documents: undefined, target: undefined, targetFailure: undefined });
}

const test = base.extend<{ shop: Shop }>({
  shop: async ({ baseURL }, use, info) => {
    // The target's URL and the variants' deployments may come after the workers started, once the doctor passed it.
    await awaitLateTarget(runPlan());
    // A plug-in's copy of a check (a variant deployment of the embedded run, a self-test's plan project) names where it
    // goes; the plug-in may skip it (runner/plugin.ts).
    const routed = routeOf(info);
    const override = routed?.baseUrl ?? baseURL;
    const params = routed?.variant
      ? runParams(routed.variant)
      : override
        ? Object.freeze({ ...runParams(), baseUrl: override.replace(/\/+$/, '') })
        : runParams();
    cacheFor(params.baseUrl);
    const http = new ShopHttp(params.baseUrl, params.tls, { maxInFlight: params.maxInFlight, inFlightPool: params.inFlightPool });
    await use({
      params,
      profile: params.profile,
      docsUrl: params.profile.docsUrl,
      mint: createMinter(params.profile),
      http,
      subject: (prefix = 'chk') => `${prefix}_${randomUUID().replace(/-/g, '')}`,
      guestSession: () => newGuestSession(params.profile.secrets.guestSessionKey),
      target: () => loadTarget(http, params.profile),
      info,
    });
    http.close();
  },
});

type TestArgs = Parameters<typeof test>;

/** Registers the check's id (unique across the suite) after checking that it cites known clauses. */
function register(spec: CheckSpec): void {
  if (CHECK_IDS.has(spec.id)) throw new Error(`duplicate check id ${spec.id}`);
  CHECK_IDS.add(spec.id);
  for (const id of spec.clauses) if (!CLAUSES_BY_ID.has(id)) throw new Error(`check ${spec.id} cites unknown clause ${id}`);
}

/** Playwright's details of the check's test: its clause, level and severity tags and the requirement sentences. */
function detailsOf(spec: CheckSpec): NonNullable<TestArgs[1]> & object {
  const severity = severityOf(spec.clauses);
  return {
    tag: [...spec.clauses.map((c) => `@${c}`), `@${spec.level ?? 'spec'}`, `@${severity}`, ...(spec.long ? [LONG_TAG] : [])],
    annotation: [
      { type: 'check', description: spec.id },
      { type: 'severity', description: severity },
      ...spec.clauses.map((c) => ({ type: 'clause', description: `${c}: ${CLAUSES_BY_ID.get(c)!.text}` })),
    ],
  };
}

/** Skips the check, with the reason, when the profile does not claim its capabilities or declares no data. */
function skipUnlessApplicable(spec: CheckSpec, shop: Shop): void {
  for (const cap of spec.requires ?? []) {
    test.skip(!shop.profile.capabilities[cap], `the profile does not claim the capability "${cap}"`);
  }
  test.skip(
    spec.seed === true && shop.profile.data === null,
    'the profile declares that the deployment holds none of the data checks need (data: null); declare data.* to run it',
  );
}

/** The description documents, once per worker, before the body: checks build bodies and routes from them. */
async function ensureTarget(shop: Shop): Promise<void> {
  if (!target)
    await loadTarget(
      new ShopHttp(shop.params.baseUrl, shop.params.tls, { maxInFlight: shop.params.maxInFlight, inFlightPool: shop.params.inFlightPool }),
      shop.profile,
    ).catch((err: unknown) => (targetFailure = err));
}

/** Runs the body with a ledger open for its soft failures; returns what stopped it (if anything) and the ledger. */
async function runBody(
  spec: CheckSpec,
  body: (shop: Shop) => Promise<void>,
  shop: Shop,
  info: TestInfo,
): Promise<{ hard: unknown; soft: CheckFailure[] }> {
  const soft: CheckFailure[] = [];
  softFailures.ledger = soft;
  softFailures.exchanges = () => shop.http.exchanges.length;
  let hard: unknown;
  try {
    await body(shop);
  } catch (err) {
    // test.skip() inside a body throws to stop it: a skip, not a failure.
    if (info.expectedStatus === 'skipped') throw err;
    // What the check needs and the deployment does not declare: not judged, with the declaration that would enable it.
    if (err instanceof NotDeclared) test.skip(true, err.message);
    if (err instanceof CheckFailure) err.exchange ??= shop.http.exchanges.length;
    hard = err ?? new Error(String(err));
  } finally {
    // Judged whatever stopped the body: every answer the deployment gave is on the record.
    if (spec.everyResponse && info.expectedStatus !== 'skipped')
      judgeEveryExchange(shop.http.exchanges, { baseUrl: shop.params.baseUrl, docsUrl: shop.docsUrl });
    softFailures.ledger = undefined;
    softFailures.exchanges = undefined;
    // The cells of clause domains this check's exchanges fell in (domain coverage: engine/report/coverage.ts); a plug-in may
    // leave them out (the self-test reads only its baseline's, for the screening of narrowed variants).
    if (checkPlugins().every((p) => p.recordsCells?.() ?? true))
      info.annotations.push({
        type: 'cells',
        description: JSON.stringify(exchangePoints(shop.http.exchanges, shop.profile, shop.params.baseUrl)),
      });
  }
  return { hard, soft };
}

/**
 * The failure text Playwright shows: the failures and the blamed clauses with their sentences. The transcript is in its
 * file (attached once), not repeated here: a failing run stays readable at a hundred failures.
 */
function failureText(verdict: Verdict, transcriptFile: string, exchanges: number): string {
  const { blamed, others } = verdict;
  const clauses = blamed.map((c) => `  ${c}: ${CLAUSES_BY_ID.get(c)?.text ?? '(not in the catalogue)'}`).join('\n');
  return (
    `${verdict.failures.map((f) => f.message).join('\n')}\n\nFailed clause${blamed.length > 1 ? 's' : ''} (${verdict.severity}):\n${clauses}` +
    (others.length ? `\n${verdict.completed ? 'Judged and passed' : 'Not reached'}: ${others.join(', ')}` : '') +
    `\n\nTranscript (${exchanges} exchanges): ${transcriptFile}`
  );
}

/** --repro: the transcript of a passing run too (the failure did not reproduce: here is what happened this time). */
function printPassingTranscript(spec: CheckSpec, shop: Shop): void {
  if (!runPlan().selection.repro) return;
  const redact = redactor(shop.profile, shop.params.showSecrets);
  const transcript = shop.http.exchanges.map((x) => formatExchange(x, redact)).join('\n\n');
  process.stdout.write(`\n[${spec.id}] passed. Transcript (${shop.http.exchanges.length} exchanges):\n${transcript || '  (none)'}\n`);
}

/**
 * Reports a judged failure: the record for the reporters, the transcript written once to the test's output directory
 * (each exchange under a numbered heading the failure report cites: engine/report/failure-report.ts), and the outcome. In the
 * self-test the failure is the kill, recorded, and the test passes (the worker lives on); a warning passes with its
 * annotation; a failure throws, marked expected inside the worker (keep-worker.ts restores it for every reporter).
 */
async function reportFailure(verdict: Verdict, shop: Shop, info: TestInfo): Promise<void> {
  info.annotations.push(
    encodeRecord({
      outcome: verdict.outcome,
      blamed: verdict.blamed,
      completed: verdict.completed,
      setup: verdict.setup,
      failures: verdict.failures,
    }),
  );
  // A plug-in may take the failure over (the self-test records a kill, and reads the verdict alone: no transcript).
  if (checkPlugins().some((p) => p.onFailure?.(info, verdict.blamed))) return;
  const transcript = formatTranscript(shop.http.exchanges, redactor(shop.profile, shop.params.showSecrets));
  // Playwright copies an attached file into the test's attachments: the copy is the one file kept.
  const written = info.outputPath('transcript.txt');
  writeFileSync(written, transcript + '\n');
  await info.attach('transcript.txt', { path: written, contentType: 'text/plain' });
  rmSync(written, { force: true });
  const file = info.attachments.filter((a) => a.name === 'transcript.txt').at(-1)?.path ?? written;
  // --repro: the one check's whole transcript on the console, as for a passing check.
  if (runPlan().selection.repro)
    process.stdout.write(
      `\n[${info.annotations.find((a) => a.type === 'check')?.description}] ${verdict.outcome}. Transcript:\n${transcript}\n`,
    );
  if (verdict.outcome === 'warning') {
    info.annotations.push({ type: 'warning', description: verdict.failures[0]!.message });
    return;
  }
  const message = failureText(verdict, file, shop.http.exchanges.length);
  const failure = new Error(message);
  failure.stack = message;
  info.expectedStatus = 'failed';
  throw failure;
}

/**
 * The arguments of one Playwright test for a check. Check files call `test(...check(spec, body))` themselves, so that
 * Playwright records the check file's own location (reports, JUnit `file` attributes), not this module's.
 */
export function check(
  spec: CheckSpec,
  body: (shop: Shop) => Promise<void>,
): [TestArgs[0], NonNullable<TestArgs[1]> & object, (args: { shop: Shop }, info: TestInfo) => Promise<void>] {
  if (spec.everyResponse) spec = { ...spec, clauses: [...new Set([...spec.clauses, ...AMBIENT_CLAUSES])] };
  register(spec);
  const title = `[${spec.id}] ${spec.title}`;
  const run = judgeCheck(spec, body);
  // Plug-ins (runner/plugin.ts) may register copies of the check beside it, and change its own test's details.
  let details = detailsOf(spec);
  for (const plugin of checkPlugins()) details = plugin.copies?.({ spec, title, details, run, test }) ?? details;
  return [title, details, run];
}

/** The body of a check's test: applicability, the body, the verdict and its report. */
function judgeCheck(spec: CheckSpec, body: (shop: Shop) => Promise<void>): (args: { shop: Shop }, info: TestInfo) => Promise<void> {
  return async ({ shop }, info) => {
    skipUnlessApplicable(spec, shop);
    await judgeBody(spec, body, shop, info);
  };
}

/** Runs the body and reports its verdict. */
async function judgeBody(spec: CheckSpec, body: (shop: Shop) => Promise<void>, shop: Shop, info: TestInfo): Promise<void> {
  await ensureTarget(shop);
  const { hard, soft } = await runBody(spec, body, shop, info);
  const redact = redactor(shop.profile, shop.params.showSecrets);
  const exchanges = shop.http.exchanges.length;
  const verdict = judge({
    clauses: spec.clauses,
    hard: hard === undefined ? undefined : recordOf(hard, redact, exchanges),
    soft: soft.map((f) => recordOf(f, redact, exchanges)),
    strict: shop.params.strict,
  });
  if (verdict.outcome === 'passed') return printPassingTranscript(spec, shop);
  await reportFailure(verdict, shop, info);
}

/** Ends a check that finds at run time that the target cannot show what it looks at: a skip with the reason. */
export function notApplicable(reason: string): never {
  test.skip(true, reason);
  throw new Error(`not applicable: ${reason}`);
}

export { test };
