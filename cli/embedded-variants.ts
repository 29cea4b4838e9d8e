// Deployments the embedded run starts beside the reference it judges, so that the rows of the spec that depend on a
// configuration the fixture cannot have at the same time are judged too: an endpoint closed for want of its secret, the
// webhook switched off or left without its secret, a previous guest key past its deadline. Each variant is the fixture
// profile with a few fields changed; the reference reads its configuration from that profile, and the suite judges it
// through the same profile, exactly as it would judge a deployment configured that way.
import type { Profile } from '../contract/profile.js';

export interface EmbeddedVariant {
  /** Names the Playwright project and the variant's temporary files. */
  readonly name: string;
  /** What is configured differently, for the run's log. */
  readonly what: string;
  /** The checks judged against it (everything they need is in the variant's profile). */
  readonly checks: readonly string[];
  readonly profile: (p: Profile) => Profile;
}

/** A deadline long past: the previous guest key no longer verifies. */
const PAST = '2000-01-01T00:00:00.000Z';

export const EMBEDDED_VARIANTS: readonly EmbeddedVariant[] = [
  {
    name: 'closed',
    what: 'no ACCOUNT_RECOVERY_SECRET, the webhook off, the previous guest key past its deadline',
    checks: ['recovery.closed-without-secret', 'events.webhook.not-configured', 'auth.guest.previous-key-after-deadline'],
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
];
