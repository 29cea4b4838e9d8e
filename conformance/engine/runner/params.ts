// A worker's run parameters: the run plan (plan.ts) and the late target (late.ts), with the profile read and the TLS
// options built, parsed once, frozen.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { profileSchema, type Profile } from '../../../contract/profile.js';
import type { TlsOptions } from '../transport/wire.js';
import { lateTarget, workerSettings } from './late.js';
import { judgingSchema, runPlan, variantSchema, type RunPlan } from './plan.js';

/** A deployment that a Playwright project judges instead of the run's target (its own base URL and profile). */
export type TargetVariant = z.infer<typeof variantSchema>;

/** The annotation that names the variant deployment a check's copy judges (engine/runner/check.ts; reporter.ts, list.ts read it). */
export const DEPLOYMENT = 'deployment';

/** The variants' deployments, once the late target has arrived (each check's copy waits for it: engine/runner/check.ts). */
export function runVariants(plan: Readonly<RunPlan> = runPlan()): TargetVariant[] {
  return lateTarget(plan)?.variants ?? [];
}

const paramsSchema = z.object({
  baseUrl: z.url().transform((u) => u.replace(/\/+$/, '')),
  profilePath: z.string().min(1),
  ...judgingSchema.shape,
  /** 'embedded' when the CLI booted the reference for this run. */
  target: z.enum(['embedded', 'external']),
  caPath: z.string().min(1).optional(),
  insecure: z.boolean(),
  /** This worker's share of the run's cap on requests in flight; absent: no cap (a worker started outside the CLI). */
  maxInFlight: z.number().int().min(1).optional(),
  /** The run's pool of further places (in-flight-pool.ts), borrowed from when the worker's own are taken. */
  inFlightPool: z.string().min(1).optional(),
});

export type RunParams = z.infer<typeof paramsSchema> & { profile: Profile; tls: TlsOptions };

/**
 * A profile file, parsed; throws an Error whose message is one line naming the file and the failing field. With
 * `toMint`, the first signing key must hold its private part: the suite mints every caller kind's tokens with it.
 */
export function readProfileFile(path: string, o: { toMint?: boolean } = {}): Profile {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(
      `${path}: ${code === 'ENOENT' ? 'no such file' : code ? `cannot read it (${code})` : `not JSON (${(err as Error).message})`}`,
      {
        cause: err,
      },
    );
  }
  const parsed = profileSchema.safeParse(raw);
  if (!parsed.success) {
    const i = parsed.error.issues[0]!;
    throw new Error(`${path}: ${i.path.join('.') || '(root)'}: ${i.message.split('\n')[0]}`);
  }
  if (o.toMint && !parsed.data.signingKeys[0]!.d) {
    throw new Error(
      `${path}: signingKeys.0.d: the first signing key has no private part, so the suite cannot mint tokens with it (a deployment's public copy of the profile?)`,
    );
  }
  return parsed.data;
}

/** A PEM bundle of CA certificates; throws with a one-line reason when the file is unreadable or holds no certificate. */
export function readCaFile(path: string): string {
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { cause: err });
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new Error(`${path} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  return pem;
}

const cached = new Map<string, RunParams>();

/** The run's parameters; a variant (a Playwright project of the embedded run) replaces the base URL and the profile. */
export function runParams(variant?: Pick<TargetVariant, 'baseUrl' | 'profilePath'>, plan: Readonly<RunPlan> = runPlan()): RunParams {
  // The target the CLI learned after Playwright started (late.ts), once it has arrived; before, the plan's.
  const late = lateTarget(plan);
  const baseUrl = variant?.baseUrl ?? late?.baseUrl ?? plan.target.baseUrl;
  const profilePath = variant?.profilePath ?? late?.profilePath ?? plan.target.profilePath;
  // Keyed by target and profile: a read before the late target arrived is not the run's.
  const key = `${baseUrl} ${profilePath}`;
  const known = cached.get(key);
  if (known) return known;
  const workers = workerSettings(plan);
  const parsed = paramsSchema.parse({
    baseUrl,
    profilePath,
    level: plan.level,
    strict: plan.strict,
    seed: plan.seed,
    showSecrets: plan.showSecrets,
    target: plan.target.kind,
    caPath: plan.target.caPath,
    insecure: plan.target.insecure,
    maxInFlight: workers.maxInFlight,
    inFlightPool: workers.inFlightPool,
  });
  const tls = Object.freeze({ ...(parsed.caPath ? { ca: readCaFile(parsed.caPath) } : {}), insecure: parsed.insecure });
  const params = Object.freeze({ ...parsed, profile: Object.freeze(readProfileFile(parsed.profilePath)), tls });
  cached.set(key, params);
  return params;
}
