// Deployments the embedded run starts beside the reference it judges, so that the rows of the spec that depend on a
// configuration the fixture cannot have at the same time are judged too: an endpoint closed for want of its secret, the
// webhook switched off or left without its secret, a previous guest key past its deadline. Each variant is the fixture
// profile with a few fields changed; the reference reads its configuration from that profile, and the suite judges it
// through the same profile, exactly as it would judge a deployment configured that way.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Profile } from '../contract/profile.js';
import { startIdp, type RunningIdp } from '../conformance/engine/doctor/idp.js';
import type { TargetVariant } from '../conformance/engine/runner/params.js';
// The reference is imported when a variant starts: the run names the variants (EMBEDDED_VARIANTS) before it loads it.
import type { RunningServer } from '../reference/src/server.js';
import type { Logger } from '../reference/src/log.js';

export interface EmbeddedVariant {
  /** Names the Playwright project and the variant's temporary files. */
  readonly name: string;
  /** What is configured differently, for the run's log. */
  readonly what: string;
  /** The checks judged against it (everything they need is in the variant's profile). */
  readonly checks: readonly string[];
  readonly profile: (p: Profile, ctx: { readonly idpJwksUri: string }) => Profile;
}

/** A deadline long past: the previous guest key no longer verifies. */
const PAST = '2000-01-01T00:00:00.000Z';

export const EMBEDDED_VARIANTS: readonly EmbeddedVariant[] = [
  {
    name: 'closed',
    what: 'no ACCOUNT_RECOVERY_SECRET, the webhook off, the previous guest key past its deadline',
    checks: [
      'endpoints.recovery.closed-without-secret',
      'events.webhook.not-configured',
      'authentication.guest.previous-key-after-deadline',
    ],
    profile: (p) => ({
      ...p,
      capabilities: { ...p.capabilities, webhook: false, recovery: false },
      secrets: {
        ...p.secrets,
        accountRecoverySecret: null,
        // A previous key of its own when the fixture has none: the check signs with it and expects a refusal.
        guestSessionKeyPrevious: p.secrets.guestSessionKeyPrevious ?? `${p.secrets.guestSessionKey}-previous`,
        guestSessionKeyPreviousUntil: PAST,
      },
    }),
  },
  {
    name: 'webhook-secret-missing',
    what: 'the webhook on without STRIPE_WEBHOOK_SECRET',
    checks: ['events.webhook.secret-missing'],
    profile: (p) => ({ ...p, capabilities: { ...p.capabilities, webhook: true }, secrets: { ...p.secrets, stripeWebhookSecret: null } }),
  },
  {
    name: 'verifier-outage',
    what: "JWKS_URI at the suite's identity provider, which the check takes down",
    checks: ['errors.verifier-outage', 'errors.verifier-outage.reference'],
    profile: (p, ctx) => ({ ...p, jwksUri: ctx.idpJwksUri }),
  },
];

export interface RunningVariants {
  /** What the Playwright projects need (handed to them through the run's late target file: engine/runner/late.ts). */
  readonly variants: TargetVariant[];
  close(): Promise<void>;
}

/**
 * Starts every variant (and the identity provider they share) on ephemeral ports, each with its database and profile in
 * `dir`; `only` names the variants to start (the self-test starts one per defect judged on a variant, so that no two
 * share a database or an identity provider the outage check takes down).
 */
export async function startEmbeddedVariants(
  profile: Profile,
  dir: string,
  only?: readonly string[],
  log?: Logger,
): Promise<RunningVariants> {
  const servers: RunningServer[] = [];
  let idp: RunningIdp | undefined;
  try {
    idp = await startIdp({ profile });
    const jwksUri = idp.jwksUri;
    // Started at once (each has its own database and profile file); every one started is closed if another fails.
    const started = await Promise.allSettled(
      EMBEDDED_VARIANTS.filter((x) => !only || only.includes(x.name)).map(async (v) => ({
        v,
        ...(await startConfigured(v.profile(profile, { idpJwksUri: jwksUri }), dir, v.name, log)),
      })),
    );
    for (const r of started) if (r.status === 'fulfilled') servers.push(r.value.server);
    const failed = started.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    const variants: TargetVariant[] = started.flatMap((r) =>
      r.status === 'fulfilled'
        ? [{ name: r.value.v.name, baseUrl: r.value.server.url, profilePath: r.value.profilePath, checks: [...r.value.v.checks] }]
        : [],
    );
    const sharedIdp = idp;
    return {
      variants,
      async close() {
        await Promise.all([...servers.map((s) => s.close()), sharedIdp.close()]);
      },
    };
  } catch (err) {
    await Promise.all([...servers.map((s) => s.close()), idp?.close()]);
    throw err;
  }
}

/** A reference configured by `profile` as written (its database and profile file in `dir`, named after `name`). */
export async function startConfigured(
  profile: Profile,
  dir: string,
  name: string,
  log?: Logger,
): Promise<{ server: RunningServer; profilePath: string }> {
  const [{ loadConfig }, { startServer }] = await Promise.all([import('../reference/src/config.js'), import('../reference/src/server.js')]);
  const profilePath = join(dir, `profile.${name}.json`);
  writeFileSync(profilePath, JSON.stringify(profile, null, 2));
  const config = loadConfig({
    env: {},
    profilePath,
    overrides: { port: 0, host: '127.0.0.1', databasePath: join(dir, `reference.${name}.db`), logLevel: 'error' },
  });
  return { server: await startServer(config, { log }), profilePath };
}
