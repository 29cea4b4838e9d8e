// doctor: before any check runs, is the target reachable, does it answer problem documents, and does it accept a token
// minted from the profile? A deployment that does not trust the suite's issuer gets one clear message, not 200 failures.
import type { Profile } from '../../contract/profile.js';
import { createMinter } from '../lib/mint.js';

export interface DoctorStep {
  name: string;
  ok: boolean;
  detail: string;
}

export interface DoctorReport {
  ok: boolean;
  /** 0 ready; 3 unreachable or not trusting the issuer. */
  exitCode: 0 | 3;
  steps: DoctorStep[];
}

async function get(url: string, headers: Record<string, string> = {}, timeoutMs = 5000) {
  const res = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type') ?? '', text };
}

export async function doctor(baseUrl: string, profile: Profile, o: { timeoutMs?: number } = {}): Promise<DoctorReport> {
  const steps: DoctorStep[] = [];
  const base = baseUrl.replace(/\/+$/, '');
  const done = (exitCode: 0 | 3): DoctorReport => ({ ok: exitCode === 0 && steps.every((s) => s.ok), exitCode, steps });

  try {
    const h = await get(`${base}/health`, {}, o.timeoutMs);
    steps.push({ name: 'reachable', ok: true, detail: `GET /health answered ${h.status}` });
  } catch (err) {
    const c = (err as { cause?: { code?: string; message?: string } }).cause;
    const cause = c?.code ?? c?.message ?? (err as Error).message;
    steps.push({ name: 'reachable', ok: false, detail: `nothing answers at ${base} (${cause})` });
    return done(3);
  }

  const anon = await get(`${base}/v1/cart`, {}, o.timeoutMs).catch(() => undefined);
  const problem = anon?.type.startsWith('application/problem+json') ?? false;
  steps.push({
    name: 'problem documents',
    ok: problem,
    detail: problem ? `GET /v1/cart without a token answered ${anon!.status} application/problem+json` : `GET /v1/cart without a token answered ${anon?.status ?? 'nothing'} ${anon?.type ?? ''}: expected a problem document`,
  });

  const minter = createMinter(profile);
  const token = profile.capabilities.guests ? await minter.guest() : await minter.customer({ sub: `doctor_${Date.now()}` });
  const who = profile.capabilities.guests ? 'a storefront (guest) token' : 'a customer token';
  const res = await get(`${base}/v1/catalog/collections`, { authorization: `Bearer ${token}` }, o.timeoutMs).catch(() => undefined);
  if (!res || res.status === 401 || res.status === 503) {
    const why = !res ? 'no answer' : res.status === 503 ? 'it cannot reach its key set (503)' : 'it refused the token (401)';
    steps.push({
      name: 'trusts the issuer',
      ok: false,
      detail:
        `GET /v1/catalog/collections with ${who} minted from profile "${profile.name}": ${why}. ` +
        `Configure the deployment to trust the suite's issuer: ISSUER=${profile.issuer}, API_AUDIENCE=${profile.audiences.api}, ` +
        `the key set (JWKS_URI pointing at \`shop-conformance idp\`, or JWKS_FILE with its keys), and the client ids of the profile ` +
        `(\`shop-conformance profile init\` writes the environment file).`,
    });
    return done(3);
  }
  steps.push({ name: 'trusts the issuer', ok: true, detail: `GET /v1/catalog/collections with ${who} answered ${res.status}` });
  return done(0);
}
