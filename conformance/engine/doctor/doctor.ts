// doctor: before any check runs, can the suite judge this target? It must answer (over TLS the suite trusts), be this
// service (OpenAPI 3 descriptions, problem documents), and trust the suite's issuer for every caller kind the profile
// claims. A target that fails that gets one clear message quoting its own refusal, not 200 failed checks (exit 3). Any
// other refusal of a setup route breaks that route's clause: a failure (exit 1) whose advice quotes the spec, and the run
// goes on (doctor-refusals.ts).

import { randomUUID } from 'node:crypto';
import type { Profile } from '../../../contract/profile.js';
import { createMinter } from '../../lib/mint.js';
import { isProblem, quoteClause } from './doctor-refusals.js';
import { REGISTER, registerSession, type AssistantSession } from './doctor-session.js';
import { describeAnswer, operatorReadPath, PROBES, runProbe, type TrustResult } from './doctor-trust.js';
import { ShopHttp, type ShopResponse } from '../transport/http.js';
import { isTlsError, type TlsOptions } from '../transport/wire.js';
import { Target } from '../transport/target.js';
import { SPECIAL_PATHS, DESCRIPTION, ASSISTANT_DESCRIPTION } from '../../../contract/routes.js';

export interface DoctorStep {
  name: string;
  ok: boolean;
  detail: string;
  /** A failed step that is a violation of the spec: the clauses the deployment broke (a failure, exit 1, not a 3). */
  clauses?: string[];
}

export interface DoctorReport {
  ok: boolean;
  /**
   * 0 ready; 1 a setup route broke the spec (the steps with `clauses`; the suite can still judge the target); 3 nothing
   * answers, TLS untrusted, not this service, or the issuer's tokens not trusted.
   */
  exitCode: 0 | 1 | 3;
  steps: DoctorStep[];
  /** The failed steps that are violations, each with the clauses broken (in `steps` too). */
  violations: { step: string; clauses: string[] }[];
  /** What to change on the deployment, when something failed. */
  advice: string[];
}

export interface DoctorOptions {
  /** Per request; 5 s by default. */
  timeoutMs?: number;
  tls?: TlsOptions;
  /** Requests in flight against the deployment at once (the run's --max-in-flight); no cap when absent. */
  maxInFlight?: number;
}

const seen = (res: ShopResponse) =>
  `${res.status} ${res.headers.get('content-type') ?? 'without Content-Type'} ${JSON.stringify(res.text.slice(0, 40))}`;

function isOpenApi3(res: ShopResponse): boolean {
  return res.status === 200 && typeof res.body?.openapi === 'string' && res.body.openapi.startsWith('3.');
}

/** Why nothing came back: the TLS failure named, with the options that fix it, or the connection error. */
function unreachable(base: string, err: unknown): string {
  const e = err as Error & { code?: string; cause?: { message?: string } };
  const reason = e.cause?.message ?? e.message;
  if (isTlsError(e))
    return `TLS to ${base} failed: ${reason}${e.code && !reason.includes(e.code) ? ` (${e.code})` : ''}; pass --ca <file> with the CA that issued its certificate, or --insecure`;
  return `nothing answers at ${base} (${e.code ?? reason})`;
}

export async function doctor(baseUrl: string, profile: Profile, o: DoctorOptions = {}): Promise<DoctorReport> {
  const base = baseUrl.replace(/\/+$/, '');
  const http = new ShopHttp(base, o.tls, { maxInFlight: o.maxInFlight });
  const timeoutMs = o.timeoutMs ?? 5000;
  const get = (path: string, headers: Record<string, string> = {}) => http.get(path, { headers, timeoutMs });
  const steps: DoctorStep[] = [];
  const advice: string[] = [];
  const done = (fatal: boolean): DoctorReport => {
    const violations = steps.filter((s) => !s.ok && s.clauses).map((s) => ({ step: s.name, clauses: s.clauses! }));
    if (violations.length > 0) advice.unshift(violationAdvice(steps, fatal));
    const exitCode = fatal ? 3 : violations.length > 0 || steps.some((s) => !s.ok) ? 1 : 0;
    return { ok: exitCode === 0, exitCode, steps, violations, advice };
  };

  try {
    try {
      const h = await get(SPECIAL_PATHS.getHealth);
      steps.push({ name: 'reachable', ok: true, detail: `GET /health answered ${h.status}` });
    } catch (err) {
      steps.push({ name: 'reachable', ok: false, detail: unreachable(base, err) });
      return done(true);
    }

    // Is it this service? The description documents and a problem document for a request without a token.
    // Independent reads: sent together, so that a remote deployment costs one round trip, not three.
    const [general, assistant, anon] = await Promise.all(
      [DESCRIPTION.path, ASSISTANT_DESCRIPTION.path, '/v1/cart'].map((path) => get(path).catch(() => undefined)),
    );
    // When some of them hold, the target is this service, and each that does not is a failure of its clauses.
    const identity: [string, string, ShopResponse | undefined, boolean, string[]][] = [
      [
        'description',
        `GET ${SPECIAL_PATHS.getDescription}`,
        general,
        general !== undefined && isOpenApi3(general),
        ['END-PUBLIC-2', 'VER-DOCS-1'],
      ],
      [
        'assistant description',
        'GET /assistant/openapi.json',
        assistant,
        assistant !== undefined && isOpenApi3(assistant),
        ['END-PUBLIC-4', 'VER-DOCS-1'],
      ],
      ['problem documents', 'GET /v1/cart without a token', anon, anon !== undefined && isProblem(anon), ['ERR-TABLE-1', 'ERR-PROBLEM-1']],
    ];
    const someIdentity = identity.some(([, , , ok]) => ok);
    for (const [name, what, res, ok, clauses] of identity) {
      const expected = name === 'problem documents' ? 'an application/problem+json object with "error"' : 'an OpenAPI 3.x JSON document';
      steps.push({
        name,
        ok,
        detail: ok
          ? `${what}: ${res!.status} ${name === 'problem documents' ? `${res!.headers.get('content-type')}` : `openapi ${res!.body.openapi}`}`
          : `${what}: ${res ? seen(res) : 'no answer'}; expected ${expected}`,
        ...(!ok && someIdentity ? { clauses } : {}),
      });
    }
    if (!someIdentity) {
      steps.push({
        name: 'this service',
        ok: false,
        detail: `${base} is not the shop service: no OpenAPI 3 description and no problem document`,
      });
      advice.push(`Check --base-url: it must be the service's base URL (where /openapi.json and /v1/... are served).`);
      return done(true);
    }

    // Trust, for every caller kind the profile claims.
    const minter = createMinter(profile);
    let session: AssistantSession | null = null;
    if (profile.capabilities.assistants) {
      const registered = await registerSession(http, profile);
      session = registered.session;
      if (session.registered) steps.push({ name: 'assistant session', ok: true, detail: `POST ${REGISTER} registered one` });
      else if (registered.refusal || registered.error) {
        // The report carried the profile's proxy secret: refusing it breaks the route's clause, it says nothing of trust.
        const answer = registered.refusal ? describeAnswer(registered.refusal) : `no answer (${registered.error})`;
        steps.push({
          name: 'assistant session',
          ok: false,
          detail: `POST ${REGISTER} with X-Proxy-Idp-Secret (the profile's secrets.proxyIdpSecret): ${answer}`,
          clauses: ['END-PUBLIC-12'],
        });
      }
    }
    // The header names of agent artifacts are the deployment's (its documents' security schemes, or the profile's conventions).
    const described = new Target(
      { general: general && isOpenApi3(general) ? general.body : {}, assistant: assistant && isOpenApi3(assistant) ? assistant.body : {} },
      profile.conventions ?? {},
    );
    const artifactHeaders = {
      invitedAgentContext: described.header('invitedAgentContext'),
      assistantBrowserSession: described.browserCarrier(),
    };
    const env = {
      http,
      profile,
      mint: minter,
      subject: `doctor_${randomUUID().replace(/-/g, '')}`,
      session,
      opsPath: operatorReadPath(general?.body),
      artifactHeaders,
    };
    // Each caller kind's probe reads on its own: all of them at once (the in-flight cap still holds), steps in their order.
    const results = await Promise.all(PROBES.filter((p) => p.claimed(profile.capabilities)).map((probe) => runProbe(probe, env)));
    for (const r of results) {
      const clauses = r.meaning?.kind === 'violation' ? { clauses: r.meaning.clauses } : {};
      steps.push({ name: `trusts ${r.kind}`, ok: r.ok, detail: r.detail, ...clauses });
    }
    // Only a refusal that says the token is untrusted (or unverifiable now, or nothing answered) ends the run.
    const refused = results.filter((r) => !r.ok && r.meaning?.kind !== 'violation');
    if (refused.length > 0)
      advice.push(
        trustAdvice(
          profile,
          refused,
          results.some((r) => r.ok),
        ),
      );
    return done(refused.length > 0);
  } finally {
    http.close();
  }
}

/** One line per step: `ok   reachable: …`, `FAIL trusts assistant: … [AUTH-ORDER-4 ERR-TABLE-4]`. */
export function formatDoctorSteps(r: DoctorReport): string[] {
  return r.steps.map((s) => `${s.ok ? 'ok  ' : 'FAIL'} ${s.name}: ${s.detail}${s.clauses ? ` [${s.clauses.join(' ')}]` : ''}`);
}

/** The setup routes that broke the spec, each with the requirements it broke, quoted. */
function violationAdvice(steps: DoctorStep[], fatal: boolean): string {
  const broken = steps.filter((s) => !s.ok && s.clauses);
  const clauses = [...new Set(broken.flatMap((s) => s.clauses!))];
  const what = fatal ? 'a failure too' : 'a failure, not a reason to stop; the run goes on';
  return (
    `The deployment broke the spec while the suite set up (${broken.map((s) => s.name).join(', ')}): ${what}. ` +
    `The spec requires: ${clauses.map(quoteClause).join(' ')}`
  );
}

/** What to configure, quoting the deployment's own words. When some kind is trusted, the issuer and keys are not the problem. */
function trustAdvice(profile: Profile, refused: TrustResult[], someTrusted: boolean): string {
  // A kind whose token the deployment takes for another audience: the profile must say so (audiences.callers).
  const moved = refused.filter((r) => r.audiences);
  const callers = Object.fromEntries(moved.map((r) => [PROBES.find((p) => p.kind === r.kind)!.caller, [r.audiences!.accepted]]));
  const declare =
    moved.length === 0
      ? ''
      : `The deployment refused ${moved.map((r) => `${r.kind} tokens for the ${r.audiences!.refused} audience`).join(', ')} and ` +
        `accepted them for the ${moved.map((r) => r.audiences!.accepted).join(', ')} audience. Declare it in the profile: ` +
        `"audiences": { ..., "callers": ${JSON.stringify(callers)} }.`;
  if (moved.length === refused.length) return declare;
  return [
    otherAdvice(
      profile,
      refused.filter((r) => !r.audiences),
      someTrusted || moved.length > 0,
    ),
    declare,
  ]
    .filter(Boolean)
    .join(' ');
}

function otherAdvice(profile: Profile, refused: TrustResult[], someTrusted: boolean): string {
  const kinds = refused.map((r) => r.kind).join(', ');
  const details = [...new Set(refused.map((r) => r.refusal?.body?.detail).filter((d): d is string => typeof d === 'string'))];
  const said = details.length > 0 ? `, saying ${details.map((d) => `"${d}"`).join(' and ')}` : '.';
  const outage = refused.some((r) => r.refusal?.status === 503);
  const clients = [...new Set(refused.flatMap((r) => PROBES.find((p) => p.kind === r.kind)?.settings(profile) ?? []))].join(', ');
  if (outage) {
    return `The deployment refused ${kinds} tokens with 503 (it cannot reach the issuer's key set)${said} Point JWKS_URI at \`shop-conformance idp\` (reachable from the deployment), or set JWKS_FILE.`;
  }
  if (someTrusted) return `The deployment refused ${kinds} tokens${said} Configure the client ids of the profile: ${clients}.`;
  return (
    `The deployment refused ${kinds} tokens${said} Configure it to trust the suite's issuer: ISSUER=${profile.issuer}, ` +
    `API_AUDIENCE=${profile.audiences.api}, the key set (JWKS_URI pointing at \`shop-conformance idp\`, or JWKS_FILE with its keys), ` +
    `and the client ids: ${clients} (\`shop-conformance profile init\` writes the environment file).`
  );
}
