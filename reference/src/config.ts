// The reference's configuration: environment variables (named as in the spec where it names them), falling back to the
// profile, parsed once by zod and frozen. An invalid value stops the start with a message naming the variable.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { profileSchema, type Profile, type SigningKey } from '../../contract/profile.js';
import { GUEST_RATE_LIMIT_DEFAULTS } from '../../contract/limits.js';
import { FIXTURE_PROFILE, FIXTURE_SEED } from './paths.js';

type Source = (p: Profile) => unknown;

interface Field {
  env: string;
  schema: z.ZodType;
  doc: string;
  /** Value taken from the profile when the variable is unset. */
  profile?: Source;
  default?: unknown;
}

const optionalSecret = (min = 16) => z.string().min(min).nullable();

/** Every configuration field, in the order docs/configuration.md lists them. */
export const CONFIG_FIELDS = {
  host: { env: 'HOST', schema: z.string().min(1), default: '127.0.0.1', doc: 'Interface to listen on.' },
  port: { env: 'PORT', schema: z.coerce.number().int().min(0).max(65535), default: 8787, doc: 'Port to listen on; 0 picks a free one.' },
  publicBaseUrl: {
    env: 'PUBLIC_BASE_URL',
    schema: z.url().nullable(),
    default: null,
    doc: 'Public origin of the service (for absolute URLs); defaults to the listening address.',
  },
  databasePath: {
    env: 'DATABASE_PATH',
    schema: z.string().min(1),
    default: ':memory:',
    doc: 'SQLite database file; `:memory:` keeps nothing. Several processes may share one file.',
  },
  seedPath: {
    env: 'SEED_PATH',
    schema: z.string().min(1).nullable(),
    default: FIXTURE_SEED,
    doc: 'Seed loaded at start (rows already present are kept); empty to load none.',
  },
  logLevel: {
    env: 'LOG_LEVEL',
    schema: z.enum(['debug', 'info', 'warn', 'error', 'silent']),
    default: 'info',
    doc: 'Lowest log level written to stderr (`silent`: none). `info` writes a line per request ([Logs](#logs)).',
  },
  heapGrowingPercent: {
    env: 'HEAP_GROWING_PERCENT',
    schema: z.coerce.number().int().min(0).max(1000),
    default: 5,
    doc: "`serve` only: how far V8's old generation may grow past the live heap between full collections, in percent; 0 leaves V8's own factor (up to 300 %). The reference's live heap is small (about 20 MB), and 5 keeps its resident memory under load near it at no measured cost in throughput (`npm run bench`).",
  },
  threadpoolSize: {
    env: 'UV_THREADPOOL_SIZE',
    schema: z.coerce.number().int().min(1).max(1024).nullable(),
    default: null,
    doc: "Threads in libuv's pool, where DPoP proof signatures are verified; read by libuv itself, checked here. Unset, the published bin's `serve` gives one fewer than the machine's cores, from 1 to 4, so that verifying does not take the core the event loop needs (on 2 cores, 1 thread served about 8 % more DPoP requests per second than libuv's default of 4).",
  },
  docsUrl: {
    env: 'DOCS_URL',
    schema: z.url(),
    profile: (p) => p.docsUrl,
    doc: 'Base of problem types: `type` = `<DOCS_URL>/api/problems/<error>`.',
  },
  issuer: { env: 'ISSUER', schema: z.url(), profile: (p) => p.issuer, doc: 'Expected `iss` of access tokens.' },
  jwksUri: {
    env: 'JWKS_URI',
    schema: z.url().nullable(),
    profile: (p) => p.jwksUri,
    doc: 'URL of the issuer key set (fetched, cached). Takes precedence over JWKS_FILE.',
  },
  jwksFile: {
    env: 'JWKS_FILE',
    schema: z.string().min(1).nullable(),
    default: null,
    doc: 'File holding the issuer key set; when neither is set, the public parts of the profile keys are used.',
  },
  jwksCacheSeconds: {
    env: 'JWKS_CACHE_SECONDS',
    schema: z.coerce.number().int().positive(),
    default: 600,
    doc: 'How long a fetched key set is reused.',
  },
  jwksTimeoutMs: {
    env: 'JWKS_TIMEOUT_MS',
    schema: z.coerce.number().int().positive(),
    default: 3000,
    doc: 'Timeout of one key-set fetch; a failed fetch answers 503 `unavailable`.',
  },
  apiAudience: { env: 'API_AUDIENCE', schema: z.string().min(1), profile: (p) => p.audiences.api, doc: 'Audience of API access tokens.' },
  agentAudience: {
    env: 'AGENT_AUDIENCE',
    schema: z.string().min(1),
    profile: (p) => p.audiences.agent,
    doc: 'Audience of agent-protocol access tokens.',
  },
  websiteClientId: {
    env: 'WEBSITE_CLIENT_ID',
    schema: z.string().min(1),
    profile: (p) => p.clients.website,
    doc: 'Client id of the web storefront (customer tokens).',
  },
  storefrontClientId: {
    env: 'STOREFRONT_CLIENT_ID',
    schema: z.string().min(1),
    profile: (p) => p.clients.storefront,
    doc: 'Machine client of guest traffic.',
  },
  backofficeClientId: {
    env: 'BACKOFFICE_CLIENT_ID',
    schema: z.string().min(1),
    profile: (p) => p.clients.backoffice,
    doc: 'Machine client of operators.',
  },
  agentProtocolClientId: {
    env: 'AGENT_PROTOCOL_CLIENT_ID',
    schema: z.string().min(1),
    profile: (p) => p.clients.agentProtocol,
    doc: 'Client of the agent-protocol server (delegated tokens).',
  },
  webAgentForwarderClientId: {
    env: 'WEB_AGENT_FORWARDER_CLIENT_ID',
    schema: z.string().min(1),
    profile: (p) => p.clients.webAgentForwarder,
    doc: 'Machine client forwarding invited agents and assistant browsers.',
  },
  mcpAgentForwarderClientId: {
    env: 'MCP_AGENT_FORWARDER_CLIENT_ID',
    schema: z.string().min(1),
    profile: (p) => p.clients.mcpAgentForwarder,
    doc: 'Machine client forwarding signed-out assistants.',
  },
  personalAgentProxyClientId: {
    env: 'PERSONAL_AGENT_PROXY_CLIENT_ID',
    schema: z.string().min(1),
    profile: (p) => p.clients.personalAgentProxy,
    doc: 'Shared client of the identity-provider proxy (assistant tokens).',
  },
  guestSessionKey: {
    env: 'GUEST_SESSION_KEY',
    schema: z.string().min(16),
    profile: (p) => p.secrets.guestSessionKey,
    doc: 'HMAC key of guest sessions.',
  },
  guestSessionKeyPrevious: {
    env: 'GUEST_SESSION_KEY_PREVIOUS',
    schema: optionalSecret(),
    profile: (p) => p.secrets.guestSessionKeyPrevious,
    doc: 'Previous guest key during a rotation.',
  },
  guestSessionKeyPreviousUntil: {
    env: 'GUEST_SESSION_KEY_PREVIOUS_UNTIL',
    schema: z.iso.datetime({ offset: true }).nullable(),
    profile: (p) => p.secrets.guestSessionKeyPreviousUntil,
    doc: 'ISO 8601 instant before which the previous key verifies (rotation window: 30 days).',
  },
  webSessionContextKey: {
    env: 'WEB_SESSION_CONTEXT_KEY',
    schema: z.string().min(16),
    profile: (p) => p.secrets.webSessionContextKey,
    doc: 'HMAC key of invited-agent contexts; never creates customer authority.',
  },
  proxyIdpSecret: {
    env: 'PROXY_IDP_SECRET',
    schema: optionalSecret(),
    profile: (p) => p.secrets.proxyIdpSecret,
    doc: 'Expected `X-Proxy-Idp-Secret` of the identity-provider proxy.',
  },
  idpActionSecret: {
    env: 'IDP_ACTION_SECRET',
    schema: optionalSecret(),
    profile: (p) => p.secrets.idpActionSecret,
    doc: 'Shared secret of the identity provider action script.',
  },
  conversationHubSecret: {
    env: 'CONVERSATION_HUB_SECRET',
    schema: optionalSecret(),
    profile: (p) => p.secrets.conversationHubSecret,
    doc: 'Bearer secret of the conversation hub.',
  },
  accountRecoverySecret: {
    env: 'ACCOUNT_RECOVERY_SECRET',
    schema: optionalSecret(),
    profile: (p) => p.secrets.accountRecoverySecret,
    doc: 'Bearer secret of the recovery endpoint; unset closes it.',
  },
  stripeWebhookSecret: {
    env: 'STRIPE_WEBHOOK_SECRET',
    schema: z.string().startsWith('whsec_').nullable(),
    profile: (p) => p.secrets.stripeWebhookSecret,
    doc: 'Signing secret of payment webhooks.',
  },
  paymentProvider: {
    env: 'PAYMENT_PROVIDER',
    schema: z.enum(['simulated', 'stripe']),
    default: 'simulated',
    doc: 'Payment provider adapter: `simulated` (offline, default) or `stripe` (test-mode keys).',
  },
  stripeSecretKey: {
    env: 'STRIPE_SECRET_KEY',
    schema: z
      .string()
      .regex(/^(sk|rk)_test_/, 'a Stripe test-mode key (sk_test_… or rk_test_…)')
      .nullable(),
    default: null,
    doc: 'Stripe secret key for PAYMENT_PROVIDER=stripe; test mode only.',
  },
  paymentWebhookEnabled: {
    env: 'PAYMENT_WEBHOOK_ENABLED',
    schema: z.union([z.boolean(), z.stringbool()]),
    profile: (p) => p.capabilities.webhook,
    doc: 'Serve POST /webhooks/stripe; when off it answers 404 `not_configured`.',
  },
  guestRateLimitBudget: {
    env: 'GUEST_RATE_LIMIT_BUDGET',
    schema: z.coerce.number().int().positive(),
    profile: (p) => p.rateLimits?.guestBudget ?? GUEST_RATE_LIMIT_DEFAULTS.budget,
    doc: 'Guest requests per operation id and shopper in one window.',
  },
  guestRateLimitWindowSeconds: {
    env: 'GUEST_RATE_LIMIT_WINDOW_SECONDS',
    schema: z.coerce.number().int().positive(),
    profile: (p) => p.rateLimits?.guestWindowSeconds ?? GUEST_RATE_LIMIT_DEFAULTS.windowSeconds,
    doc: 'Length of a guest rate-limit window.',
  },
  dpopIatWindowSeconds: {
    env: 'DPOP_IAT_WINDOW_SECONDS',
    schema: z.coerce.number().int().min(1).max(3600),
    default: 300,
    doc: 'How far a DPoP proof `iat` may lie before or after the server clock (seconds, both ways). Accepted proofs are remembered this long plus 60 s (docs/assistants.md).',
  },
  dpopNonceLifetimeSeconds: {
    env: 'DPOP_NONCE_LIFETIME_SECONDS',
    schema: z.coerce.number().int().min(10).max(86400),
    default: 300,
    doc: 'How long a `DPoP-Nonce` is accepted after it was issued (every response to a DPoP request carries a fresh one).',
  },
  dpopNonceKey: {
    env: 'DPOP_NONCE_KEY',
    schema: optionalSecret(),
    default: null,
    doc: 'HMAC key of the stateless DPoP nonces. Unset: a random key is generated once and kept in the database, so every instance on one database file shares it.',
  },
  assistantSessionRateLimitBudget: {
    env: 'ASSISTANT_SESSION_RATE_LIMIT_BUDGET',
    schema: z.coerce.number().int().positive(),
    profile: (p) => p.rateLimits?.assistantSessionBudget ?? 300,
    doc: 'Assistant requests per assistant session in one window (all operations together).',
  },
  assistantClientRateLimitBudget: {
    env: 'ASSISTANT_CLIENT_RATE_LIMIT_BUDGET',
    schema: z.coerce.number().int().positive(),
    profile: (p) => p.rateLimits?.assistantClientBudget ?? 3000,
    doc: 'Assistant requests per agent client (the `client_id` the proxy registered the session with) in one window, over all its sessions.',
  },
  assistantRateLimitWindowSeconds: {
    env: 'ASSISTANT_RATE_LIMIT_WINDOW_SECONDS',
    schema: z.coerce.number().int().positive(),
    profile: (p) => p.rateLimits?.assistantWindowSeconds ?? 60,
    doc: 'Length of an assistant rate-limit window (session and client budgets).',
  },
  eventStreamKeepAliveMs: {
    env: 'EVENT_STREAM_KEEPALIVE_MS',
    schema: z.coerce.number().int().min(10).max(15000),
    default: 15000,
    doc: 'Interval of the `: keep-alive` comment on event streams (milliseconds). The spec asks for one every 15 seconds, so 15000 is the upper bound; tests set a few ms.',
  },
  checkoutReconcileAfterSeconds: {
    env: 'CHECKOUT_RECONCILE_AFTER_SECONDS',
    schema: z.coerce.number().int().min(0).max(86400),
    default: 120,
    doc: 'Age after which a checkout left unfinished (the process stopped between the charge and the order) is settled by the reconciler, at start-up and every minute: its charge is asked of the provider, then the order is written or the charge refunded (docs/checkout.md). Longer than any checkout request; 0 only when no other instance shares the database file.',
  },
  crashPoint: {
    env: 'CRASH_POINT',
    schema: z
      .enum(['checkout:attempt-written', 'checkout:charged', 'checkout:order-written', 'checkout:refund-due', 'checkout:refunded'])
      .nullable(),
    default: null,
    doc: 'For the crash test only (`npm run crash-test`): the process kills itself (SIGKILL) on reaching this point of a checkout.',
  },
} satisfies Record<string, Field>;

type Fields = typeof CONFIG_FIELDS;
export type Config = Readonly<{ [K in keyof Fields]: z.output<Fields[K]['schema']> }> & {
  readonly profilePath: string;
  /** Public keys of the profile, used when neither JWKS_URI nor JWKS_FILE is set. */
  readonly profileKeys: readonly SigningKey[];
};

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export interface LoadConfigOptions {
  env?: NodeJS.ProcessEnv;
  profilePath?: string;
  /** Values that win over the environment (CLI flags, tests). */
  overrides?: Partial<{ [K in keyof Fields]: unknown }>;
}

export function readProfile(path: string): Profile {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new ConfigError(`cannot read profile ${path}: ${(err as Error).message}`);
  }
  const parsed = profileSchema.safeParse(raw);
  if (!parsed.success) {
    const first = parsed.error.issues[0]!;
    throw new ConfigError(`profile ${path}: ${first.path.join('.') || '(root)'}: ${first.message}`);
  }
  return parsed.data;
}

export function loadConfig(options: LoadConfigOptions = {}): Config {
  const env = options.env ?? process.env;
  const profilePath = options.profilePath ?? env.PROFILE_PATH ?? FIXTURE_PROFILE;
  const profile = readProfile(profilePath);
  const out: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(CONFIG_FIELDS) as [keyof Fields, Field][]) {
    const override = options.overrides?.[name];
    const fromEnv = env[field.env];
    // An empty variable means "unset to null" for nullable fields, so a profile value can be switched off.
    const raw =
      override !== undefined
        ? override
        : fromEnv !== undefined
          ? fromEnv === ''
            ? null
            : fromEnv
          : field.profile
            ? field.profile(profile)
            : field.default;
    const parsed = field.schema.safeParse(raw);
    if (!parsed.success) {
      const msg = parsed.error.issues[0]?.message ?? 'invalid';
      throw new ConfigError(`${field.env}: ${msg} (got ${raw === null ? 'nothing' : JSON.stringify(String(raw).slice(0, 40))})`);
    }
    out[name] = parsed.data;
  }
  if (out.paymentProvider === 'stripe' && out.stripeSecretKey === null) {
    throw new ConfigError('STRIPE_SECRET_KEY: required when PAYMENT_PROVIDER=stripe');
  }
  if ((out.guestSessionKeyPrevious === null) !== (out.guestSessionKeyPreviousUntil === null)) {
    throw new ConfigError('GUEST_SESSION_KEY_PREVIOUS and GUEST_SESSION_KEY_PREVIOUS_UNTIL: set both or neither');
  }
  out.profilePath = profilePath;
  out.profileKeys = profile.signingKeys.map(({ d: _private, ...pub }) => Object.freeze(pub));
  return deepFreeze(out) as Config;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
