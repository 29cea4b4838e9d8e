// doctor: before any check runs, can the suite judge this target? It must answer (over TLS the suite trusts), be this
// service (OpenAPI 3 descriptions, problem documents), and trust the suite's issuer for every caller kind the profile
// claims. A target that fails that gets one clear message quoting its own refusal, not 200 failed checks.
import { randomUUID } from 'node:crypto';
import type { Profile } from '../../contract/profile.js';
import { createMinter } from '../lib/mint.js';
import {
  describeAnswer,
  operatorReadPath,
  PROBES,
  REGISTER,
  registerSession,
  runProbe,
  type AssistantSession,
  type TrustResult,
} from './doctor-trust.js';
import { ShopHttp, type ShopResponse } from './http.js';
import { isTlsError, type TlsOptions } from './wire.js';
import { Target } from './target.js';

export interface DoctorStep {
  name: string;
  ok: boolean;
  detail: string;
}

export interface DoctorReport {
  ok: boolean;
  /** 0 ready; 3 unreachable, not this service, or not trusting the issuer. */
  exitCode: 0 | 3;
  steps: DoctorStep[];
  /** What to change on the deployment, when something failed. */
  advice: string[];
}

export interface DoctorOptions {
  /** Per request; 5 s by default. */
  timeoutMs?: number;
  tls?: TlsOptions;
}

const seen = (res: ShopResponse) =>
  `${res.status} ${res.headers.get('content-type') ?? 'without Content-Type'} ${JSON.stringify(res.text.slice(0, 40))}`;

function isOpenApi3(res: ShopResponse): boolean {
  return res.status === 200 && typeof res.body?.openapi === 'string' && res.body.openapi.startsWith('3.');
}

function isProblem(res: ShopResponse): boolean {
  const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const body = res.body as unknown;
  return (
    type === 'application/problem+json' &&
    typeof body === 'object' &&
    body !== null &&
    !Array.isArray(body) &&
    typeof (body as { error?: unknown }).error === 'string'
  );
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
  const http = new ShopHttp(base, o.tls);
  const timeoutMs = o.timeoutMs ?? 5000;
  const get = (path: string, headers: Record<string, string> = {}) => http.get(path, { headers, timeoutMs });
  const steps: DoctorStep[] = [];
  const advice: string[] = [];
  const done = (exitCode: 0 | 3): DoctorReport => ({ ok: exitCode === 0 && steps.every((s) => s.ok), exitCode, steps, advice });

  try {
    try {
      const h = await get('/health');
      steps.push({ name: 'reachable', ok: true, detail: `GET /health answered ${h.status}` });
    } catch (err) {
      steps.push({ name: 'reachable', ok: false, detail: unreachable(base, err) });
      return done(3);
    }

    // Is it this service? The description documents and a problem document for a request without a token.
    const general = await get('/openapi.json').catch(() => undefined);
    const assistant = await get('/assistant/openapi.json').catch(() => undefined);
    const anon = await get('/v1/cart').catch(() => undefined);
    const identity: [string, string, ShopResponse | undefined, boolean][] = [
      ['description', 'GET /openapi.json', general, general !== undefined && isOpenApi3(general)],
      ['assistant description', 'GET /assistant/openapi.json', assistant, assistant !== undefined && isOpenApi3(assistant)],
      ['problem documents', 'GET /v1/cart without a token', anon, anon !== undefined && isProblem(anon)],
    ];
    for (const [name, what, res, ok] of identity) {
      const expected = name === 'problem documents' ? 'an application/problem+json object with "error"' : 'an OpenAPI 3.x JSON document';
      steps.push({
        name,
        ok,
        detail: ok
          ? `${what}: ${res!.status} ${name === 'problem documents' ? `${res!.headers.get('content-type')}` : `openapi ${res!.body.openapi}`}`
          : `${what}: ${res ? seen(res) : 'no answer'}; expected ${expected}`,
      });
    }
    if (identity.every(([, , , ok]) => !ok)) {
      steps.push({
        name: 'this service',
        ok: false,
        detail: `${base} is not the shop service: no OpenAPI 3 description and no problem document`,
      });
      advice.push(`Check --base-url: it must be the service's base URL (where /openapi.json and /v1/... are served).`);
      return done(3);
    }

    // Trust, for every caller kind the profile claims.
    const minter = createMinter(profile);
    let session: AssistantSession | null = null;
    if (profile.capabilities.assistants) {
      const registered = await registerSession(http, profile);
      session = registered.session;
      if (session.registered) steps.push({ name: 'assistant session', ok: true, detail: `POST ${REGISTER} registered one` });
      else if (registered.refusal || registered.error) {
        const answer = registered.refusal ? describeAnswer(registered.refusal) : `no answer (${registered.error})`;
        steps.push({ name: 'assistant session', ok: false, detail: `POST ${REGISTER}: ${answer}` });
        if (registered.refusal)
          advice.push(
            `The deployment refused the identity-provider proxy's report (${answer}): set PROXY_IDP_SECRET to the profile's secrets.proxyIdpSecret.`,
          );
      }
    }
    // The header names of agent artifacts are the deployment's (its documents' security schemes, or the profile's conventions).
    const described = new Target(
      { general: general && isOpenApi3(general) ? general.body : {}, assistant: assistant && isOpenApi3(assistant) ? assistant.body : {} },
      profile.conventions ?? {},
    );
    const artifactHeaders = {
      invitedAgentContext: described.header('invitedAgentContext'),
      assistantBrowserSession: described.header('assistantBrowserSession'),
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
    const results: TrustResult[] = [];
    for (const probe of PROBES.filter((p) => p.claimed(profile.capabilities))) {
      const r = await runProbe(probe, env);
      results.push(r);
      steps.push({ name: `trusts ${r.kind}`, ok: r.ok, detail: r.detail });
    }
    const refused = results.filter((r) => !r.ok);
    if (refused.length > 0)
      advice.push(
        trustAdvice(
          profile,
          refused,
          results.some((r) => r.ok),
        ),
      );
    return done(refused.length > 0 || steps.some((s) => s.name === 'assistant session' && !s.ok) ? 3 : 0);
  } finally {
    http.close();
  }
}

/** What to configure, quoting the deployment's own words. When some kind is trusted, the issuer and keys are not the problem. */
function trustAdvice(profile: Profile, refused: TrustResult[], someTrusted: boolean): string {
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
