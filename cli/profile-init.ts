// Generates a fresh profile: new ES256 issuer key and random secrets (used by `profile init` and for the fixture); and
// writes it with the public key set and the environment file of a deployment that trusts it (`profile init`).
import { randomBytes, randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { exportJWK, generateKeyPair } from 'jose';
import type { Profile } from '../contract/profile.js';
import { publicJwks } from '../conformance/lib/mint.js';
import { CONFIG_FIELDS } from '../reference/src/config.js';
import { PACKAGE_ROOT } from '../reference/src/paths.js';

const rand = (bytes = 32) => randomBytes(bytes).toString('base64url');

export async function generateProfile(options: { name: string; testOnly: boolean; now?: Date }): Promise<Profile> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = await exportJWK(privateKey);
  const now = options.now ?? new Date();
  return {
    $schema: './profile.schema.json',
    name: options.name,
    testOnly: options.testOnly,
    docsUrl: 'https://docs.shop.test',
    issuer: 'https://idp.shop.test/',
    jwksUri: null,
    audiences: { api: 'https://api.shop.test', agent: 'https://agents.shop.test' },
    clients: {
      website: 'website-' + rand(6),
      storefront: 'storefront-' + rand(6),
      backoffice: 'backoffice-' + rand(6),
      agentProtocol: 'agent-protocol-' + rand(6),
      webAgentForwarder: 'web-agent-forwarder-' + rand(6),
      mcpAgentForwarder: 'mcp-agent-forwarder-' + rand(6),
      personalAgentProxy: 'personal-agent-proxy-' + rand(6),
    },
    secrets: {
      guestSessionKey: rand(),
      guestSessionKeyPrevious: rand(),
      // The spec's documented rotation window is 30 days; a fresh profile sits in the middle of one.
      guestSessionKeyPreviousUntil: new Date(now.getTime() + 15 * 86_400_000).toISOString(),
      webSessionContextKey: rand(),
      proxyIdpSecret: rand(),
      idpActionSecret: rand(),
      conversationHubSecret: rand(),
      accountRecoverySecret: rand(),
      stripeWebhookSecret: 'whsec_' + rand(24),
    },
    signingKeys: [{ kty: 'EC', crv: 'P-256', kid: randomUUID(), alg: 'ES256', use: 'sig', x: jwk.x!, y: jwk.y!, d: jwk.d! }],
    capabilities: { guests: true, operators: true, delegated: true, invitedAgents: true, assistants: true, webhook: true, recovery: true },
    // Every budget the suite reads: without the assistant ones LIM-RATE-2/3 could not be judged on this deployment.
    rateLimits: {
      guestBudget: 120,
      guestWindowSeconds: 60,
      assistantSessionBudget: 100,
      assistantClientBudget: 200,
      assistantWindowSeconds: 60,
      assistantClient: 'reported',
    },
  };
}

/** One line of a deployment's environment file: a CONFIG_FIELDS variable and its value (null: set but empty). */
export interface EnvEntry {
  name: string;
  value: string | null;
}

/**
 * The variables a deployment needs to trust the suite and share its secrets: every CONFIG_FIELDS entry that has a profile
 * source, read through that source (so the profile → variable mapping lives only in reference/src/config.ts), plus the key set.
 */
export function profileEnvironment(profile: Profile, o: { jwksFile?: string } = {}): EnvEntry[] {
  const entries: EnvEntry[] = [];
  for (const field of Object.values(CONFIG_FIELDS) as { env: string; profile?: (p: Profile) => unknown }[]) {
    if (!field.profile) continue;
    const value = field.profile(profile);
    entries.push({ name: field.env, value: value === null || value === undefined ? null : String(value) });
  }
  if (o.jwksFile !== undefined) entries.push({ name: CONFIG_FIELDS.jwksFile.env, value: o.jwksFile });
  return entries;
}

const BARE_VALUE = /^[A-Za-z0-9_@%+=:,./-]*$/;

/**
 * `NAME=value` lines as dotenv, Node's `--env-file` / `util.parseEnv` and Docker Compose read them. A value with other
 * characters than URL-safe ones is single-quoted (taken literally), or double-quoted when it holds a `'` or a newline
 * (written `\n`); null is written empty, which the reference reads as "unset to null". Profile values never need quotes.
 */
export function formatEnvFile(entries: readonly EnvEntry[], comments: readonly string[] = []): string {
  const quote = (v: string) => (BARE_VALUE.test(v) ? v : !/['\n]/.test(v) ? `'${v}'` : `"${v.replace(/\n/g, '\\n')}"`);
  const lines = [
    ...comments.map((c) => `# ${c.replace(/[\r\n]+/g, ' ')}`),
    ...entries.map((e) => `${e.name}=${e.value === null ? '' : quote(e.value)}`),
  ];
  return lines.join('\n') + '\n';
}

/** `profile init` cannot proceed: it would overwrite files (listed in `existing`), or the three targets are not distinct. */
export class ProfileInitError extends Error {
  override name = 'ProfileInitError';
  constructor(
    message: string,
    readonly existing: readonly string[] = [],
  ) {
    super(message);
  }
}

export interface InitProfileOptions {
  /** Where the profile (with the private signing key) goes. */
  out: string;
  /** Where the deployment's environment file goes. */
  envOut: string;
  name: string;
  testOnly: boolean;
  force?: boolean;
  now?: Date;
}

export interface InitProfileResult {
  profile: Profile;
  profilePath: string;
  jwksPath: string;
  envPath: string;
  env: EnvEntry[];
}

/**
 * Writes a fresh profile, its public key set (`jwks.json` next to the profile) and the environment file of a deployment
 * that trusts it. Nothing is written when any of the three exists and `force` is not set. The profile and the environment
 * file hold secrets: they are created readable by their owner only.
 */
export async function initProfileFiles(o: InitProfileOptions): Promise<InitProfileResult> {
  const profilePath = resolve(o.out);
  const envPath = resolve(o.envOut);
  const jwksPath = join(dirname(profilePath), 'jwks.json');
  const targets = [profilePath, jwksPath, envPath];
  if (new Set(targets).size !== targets.length)
    throw new ProfileInitError('the profile, jwks.json and the environment file must be three different files');
  const existing = targets.filter((p) => existsSync(p));
  if (existing.length > 0 && !o.force) {
    throw new ProfileInitError(
      `would overwrite ${existing.join(', ')} (pass --force to replace ${existing.length === 1 ? 'it' : 'them'})`,
      existing,
    );
  }

  const generated = await generateProfile({ name: o.name, testOnly: o.testOnly, now: o.now });
  // Point $schema at the schema shipped with the package, relative to where the profile lands.
  const schema = relative(dirname(profilePath), join(PACKAGE_ROOT, 'fixtures', 'profile.schema.json'))
    .split(sep)
    .join('/');
  const profile: Profile = { ...generated, $schema: schema.startsWith('.') ? schema : `./${schema}` };
  const env = profileEnvironment(profile, { jwksFile: jwksPath });

  for (const p of targets) mkdirSync(dirname(p), { recursive: true });
  writeFileSync(profilePath, JSON.stringify(profile, null, 2) + '\n', { mode: 0o600 });
  writeFileSync(jwksPath, JSON.stringify(publicJwks(profile), null, 2) + '\n');
  const comments = [
    `Configuration of a deployment that trusts the shop-conformance profile "${profile.name}" (${profilePath}).`,
    'Generated by `shop-conformance profile init`. Holds shared secrets: keep it private.',
    'JWKS_URI (e.g. the URL printed by `shop-conformance idp`) takes precedence over JWKS_FILE when set.',
  ];
  writeFileSync(envPath, formatEnvFile(env, comments), { mode: 0o600 });
  // `mode` applies only to files created here; a replaced file (--force) is narrowed too.
  for (const p of [profilePath, envPath]) chmodSync(p, 0o600);
  return { profile, profilePath, jwksPath, envPath, env };
}
