import { readFileSync, existsSync } from 'node:fs';
import { dirname, join, isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { JSONWebKeySet } from 'jose';

export const HERE = dirname(fileURLToPath(import.meta.url));

export interface Config {
  docsUrl: string;
  issuer: string;
  apiAudience: string;
  agentAudience: string;
  jwks: JSONWebKeySet;
  clients: {
    website: string;
    storefront: string;
    backoffice: string;
    agentProtocol: string;
    webAgentForwarder: string;
    mcpAgentForwarder: string;
    personalAgentProxy: string;
  };
  guestSessionKey: string;
  guestSessionKeyPrevious: string | null;
  guestSessionKeyPreviousUntil: Date | null;
  webSessionContextKey: string;
  proxyIdpSecret: string | null;
  idpActionSecret: string | null;
  conversationHubSecret: string | null;
  accountRecoverySecret: string | null;
  stripeWebhookSecret: string | null;
  paymentWebhookEnabled: boolean;
  guestBudget: number;
  guestWindowSeconds: number;
  assistantSessionBudget: number;
  assistantClientBudget: number;
  assistantWindowSeconds: number;
  publicBaseUrl: string | null;
  dpopIatWindowSeconds: number;
  dpopNonceLifetimeSeconds: number;
  keepAliveMs: number;
  browserSessionCookie: string;
  browserSessionPrefix: string;
  seedPath: string;
}

function parseEnvFile(file: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!existsSync(file)) return out;
  for (const raw of readFileSync(file, 'utf8').split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq < 0) continue;
    const key = line.slice(0, eq).trim();
    let value = line.slice(eq + 1).trim();
    if ((value.startsWith('"') && value.endsWith('"')) || (value.startsWith("'") && value.endsWith("'"))) {
      value = value.slice(1, -1);
    }
    out[key] = value;
  }
  return out;
}

function intOr(v: string | undefined, d: number): number {
  if (v === undefined || v === '') return d;
  const n = Number(v);
  return Number.isInteger(n) && n > 0 ? n : d;
}

/** Reads the deployment's own `.env` (next to this module) and its `jwks.json`. */
export function loadConfig(): Config {
  const env = parseEnvFile(join(HERE, '.env'));
  const get = (k: string): string | undefined => {
    const v = env[k];
    return v === undefined || v === '' ? undefined : v;
  };
  const need = (k: string): string => {
    const v = get(k);
    if (v === undefined) throw new Error(`configuration: ${k} is missing from ${join(HERE, '.env')}`);
    return v;
  };
  // Keys: always the jwks.json next to this module (never the suite's profile).
  const jwksFile = join(HERE, 'jwks.json');
  const jwks = JSON.parse(readFileSync(jwksFile, 'utf8')) as JSONWebKeySet;
  const until = get('GUEST_SESSION_KEY_PREVIOUS_UNTIL');
  const seed = get('SEED_PATH') ?? '../../fixtures/seed.json';
  return {
    docsUrl: need('DOCS_URL').replace(/\/+$/, ''),
    issuer: need('ISSUER'),
    apiAudience: need('API_AUDIENCE'),
    agentAudience: need('AGENT_AUDIENCE'),
    jwks,
    clients: {
      website: need('WEBSITE_CLIENT_ID'),
      storefront: need('STOREFRONT_CLIENT_ID'),
      backoffice: need('BACKOFFICE_CLIENT_ID'),
      agentProtocol: need('AGENT_PROTOCOL_CLIENT_ID'),
      webAgentForwarder: need('WEB_AGENT_FORWARDER_CLIENT_ID'),
      mcpAgentForwarder: need('MCP_AGENT_FORWARDER_CLIENT_ID'),
      personalAgentProxy: need('PERSONAL_AGENT_PROXY_CLIENT_ID'),
    },
    guestSessionKey: need('GUEST_SESSION_KEY'),
    guestSessionKeyPrevious: get('GUEST_SESSION_KEY_PREVIOUS') ?? null,
    guestSessionKeyPreviousUntil: until ? new Date(until) : null,
    webSessionContextKey: need('WEB_SESSION_CONTEXT_KEY'),
    proxyIdpSecret: get('PROXY_IDP_SECRET') ?? null,
    idpActionSecret: get('IDP_ACTION_SECRET') ?? null,
    conversationHubSecret: get('CONVERSATION_HUB_SECRET') ?? null,
    accountRecoverySecret: get('ACCOUNT_RECOVERY_SECRET') ?? null,
    stripeWebhookSecret: get('STRIPE_WEBHOOK_SECRET') ?? null,
    paymentWebhookEnabled: (get('PAYMENT_WEBHOOK_ENABLED') ?? 'true') !== 'false',
    guestBudget: intOr(get('GUEST_RATE_LIMIT_BUDGET'), 120),
    guestWindowSeconds: intOr(get('GUEST_RATE_LIMIT_WINDOW_SECONDS'), 60),
    assistantSessionBudget: intOr(get('ASSISTANT_SESSION_RATE_LIMIT_BUDGET'), 100),
    assistantClientBudget: intOr(get('ASSISTANT_CLIENT_RATE_LIMIT_BUDGET'), 200),
    assistantWindowSeconds: intOr(get('ASSISTANT_RATE_LIMIT_WINDOW_SECONDS'), 60),
    publicBaseUrl: get('PUBLIC_BASE_URL') ?? null,
    dpopIatWindowSeconds: intOr(get('DPOP_IAT_WINDOW_SECONDS'), 300),
    dpopNonceLifetimeSeconds: intOr(get('DPOP_NONCE_LIFETIME_SECONDS'), 300),
    keepAliveMs: Math.min(intOr(get('EVENT_STREAM_KEEPALIVE_MS'), 15000), 15000),
    browserSessionCookie: get('ASSISTANT_BROWSER_COOKIE') ?? 'shop_assistant_browser',
    browserSessionPrefix: get('ASSISTANT_BROWSER_PREFIX') ?? 'asb1',
    seedPath: isAbsolute(seed) ? seed : join(HERE, seed),
  };
}
