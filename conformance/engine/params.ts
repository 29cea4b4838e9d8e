// Run parameters handed from the CLI to the Playwright workers through the environment: parsed once, frozen.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { profileSchema, type Profile } from '../../contract/profile.js';
import type { TlsOptions } from './wire.js';

export const ENV = {
  baseUrl: 'SHOP_CONFORMANCE_BASE_URL',
  profile: 'SHOP_CONFORMANCE_PROFILE',
  level: 'SHOP_CONFORMANCE_LEVEL',
  strict: 'SHOP_CONFORMANCE_STRICT',
  seed: 'SHOP_CONFORMANCE_SEED',
  showSecrets: 'SHOP_CONFORMANCE_SHOW_SECRETS',
  output: 'SHOP_CONFORMANCE_OUTPUT',
  reporters: 'SHOP_CONFORMANCE_REPORTERS',
  target: 'SHOP_CONFORMANCE_TARGET',
  /** '1' when the run selects part of the checks (--grep, --clause, --last-failed, --max-failures); 'shard' when only --shard does. */
  partial: 'SHOP_CONFORMANCE_PARTIAL',
  /** Path of a PEM bundle: the CAs that issued the target's TLS certificate. */
  ca: 'SHOP_CONFORMANCE_CA',
  /** '1': accept any TLS certificate of the target. */
  insecure: 'SHOP_CONFORMANCE_INSECURE',
  /** JSON list of further deployments the embedded run started (cli/embedded-variants.ts), each judged by a few checks. */
  variants: 'SHOP_CONFORMANCE_VARIANTS',
  /** '1' under `shop-conformance self-test`: a failing check records its kill and passes (conformance/selftest/). */
  selftest: 'SHOP_CONFORMANCE_SELFTEST',
  /** `i/n` of a sharded run: its Playwright blob report is written for `report merge`. */
  shard: 'SHOP_CONFORMANCE_SHARD',
  /** '1' under `run --repro`: a passing check prints its transcript too. */
  repro: 'SHOP_CONFORMANCE_REPRO',
  /** The run's target options as typed (--base-url, --profile, ...): the failure report's `run --repro` commands repeat them. */
  reproArgs: 'SHOP_CONFORMANCE_REPRO_ARGS',
  /** `run --clause`'s clauses, comma-separated: the unjudged clauses a run lists are among them. */
  clauses: 'SHOP_CONFORMANCE_CLAUSES',
  /** Requests one worker may have in flight against the deployment: its share of `--max-in-flight` (conformance/engine/in-flight.ts). */
  maxInFlight: 'SHOP_CONFORMANCE_MAX_IN_FLIGHT',
  /** Where the workers' common pool of places in flight is served (conformance/engine/in-flight-pool.ts); empty: none. */
  inFlightPool: 'SHOP_CONFORMANCE_IN_FLIGHT_POOL',
  /** The deployment's round trip in ms as the CLI measured it (conformance/engine/workers.ts): checks get more time. */
  roundTrip: 'SHOP_CONFORMANCE_ROUND_TRIP_MS',
  /**
   * Path of the JSON file of parameters the CLI learns after Playwright has started (the embedded reference's URL and
   * profile, its variants' deployments): checks wait for it (conformance/engine/late-params.ts).
   */
  late: 'SHOP_CONFORMANCE_LATE',
  /**
   * Path of the JSON file of the workers the CLI chose for a deployment, written once it measured its round trip, after
   * Playwright started: the configuration waits for it (conformance/engine/late-params.ts, `awaitLaunchParams`).
   */
  launch: 'SHOP_CONFORMANCE_LAUNCH',
  /** In the launch file: the number of workers. */
  workers: 'SHOP_CONFORMANCE_WORKERS',
  /** The CLI's process id: a worker stops waiting for the late parameters if that process is gone. */
  lateFrom: 'SHOP_CONFORMANCE_LATE_FROM',
} as const;

const variantSchema = z.object({
  name: z.string().regex(/^[a-z0-9-]+$/),
  baseUrl: z.url(),
  profilePath: z.string().min(1),
  checks: z.array(z.string().min(1)).min(1),
});

/** A deployment that a Playwright project judges instead of the run's target (its own base URL and profile). */
export type TargetVariant = z.infer<typeof variantSchema>;

/** The annotation that names the variant deployment a check's copy judges (engine/check.ts; reporter.ts, list.ts read it). */
export const DEPLOYMENT = 'deployment';

export function variantsFromEnv(env: NodeJS.ProcessEnv = process.env): TargetVariant[] {
  const raw = env[ENV.variants];
  return raw ? z.array(variantSchema).parse(JSON.parse(raw)) : [];
}

/** A variant as known before it listens: its name and checks (what the copies of the checks need when they load). */
export type VariantPlan = Pick<TargetVariant, 'name' | 'checks'>;

/** The variants' names and checks, from their whole description or from the plan the CLI hands over before they start. */
export function variantPlansFromEnv(env: NodeJS.ProcessEnv = process.env): VariantPlan[] {
  const raw = env[ENV.variants];
  return raw ? z.array(variantSchema.pick({ name: true, checks: true })).parse(JSON.parse(raw)) : [];
}

const paramsSchema = z.object({
  baseUrl: z.url().transform((u) => u.replace(/\/+$/, '')),
  profilePath: z.string().min(1),
  level: z.enum(['spec', 'reference']),
  strict: z.boolean(),
  seed: z.coerce
    .number()
    .int()
    .min(0)
    .max(2 ** 31 - 1),
  showSecrets: z.boolean(),
  /** 'embedded' when the CLI booted the reference for this run. */
  target: z.enum(['embedded', 'external']),
  caPath: z.string().min(1).optional(),
  insecure: z.boolean(),
  /** This worker's share of the run's cap on requests in flight; absent: no cap (a worker started outside the CLI). */
  maxInFlight: z.coerce.number().int().min(1).optional(),
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
export function runParams(env: NodeJS.ProcessEnv = process.env, variant?: Pick<TargetVariant, 'baseUrl' | 'profilePath'>): RunParams {
  const baseUrl = variant?.baseUrl ?? env[ENV.baseUrl];
  const profilePath = variant?.profilePath ?? env[ENV.profile];
  // Keyed by target and profile: a read before the late parameters arrived (late-params.ts) is not the run's.
  const key = `${baseUrl} ${profilePath}`;
  const known = cached.get(key);
  if (known) return known;
  const parsed = paramsSchema.parse({
    baseUrl,
    profilePath,
    level: env[ENV.level] ?? 'spec',
    strict: env[ENV.strict] === '1',
    seed: env[ENV.seed] ?? '1',
    showSecrets: env[ENV.showSecrets] === '1',
    target: env[ENV.target] ?? 'external',
    caPath: env[ENV.ca] || undefined,
    insecure: env[ENV.insecure] === '1',
    maxInFlight: env[ENV.maxInFlight] || undefined,
    inFlightPool: env[ENV.inFlightPool] || undefined,
  });
  const tls = Object.freeze({ ...(parsed.caPath ? { ca: readCaFile(parsed.caPath) } : {}), insecure: parsed.insecure });
  const params = Object.freeze({ ...parsed, profile: Object.freeze(readProfileFile(parsed.profilePath)), tls });
  cached.set(key, params);
  return params;
}
