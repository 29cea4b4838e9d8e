// Configuration of the plainhttp server: read from the `.env` and `jwks.json` beside this module (never from the cwd,
// never from the suite, never from the process environment).
import { readFileSync, existsSync } from 'node:fs';
import { dirname, join, isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';

export const HERE = dirname(fileURLToPath(import.meta.url));

export interface Config {
  docsUrl: string;
  issuer: string;
  apiAudience: string;
  agentAudience: string;
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
  guestSessionKeyPreviousUntil: number | null;
  webSessionContextKey: string;
  proxyIdpSecret: string | null;
  idpActionSecret: string | null;
  conversationHubSecret: string | null;
  accountRecoverySecret: string | null;
  stripeWebhookSecret: string | null;
  paymentWebhookEnabled: boolean;
  guestRateLimitBudget: number;
  guestRateLimitWindowSeconds: number;
  jwks: { keys: Record<string, unknown>[] };
  seedPath: string | null;
}

function parseEnvFile(path: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!existsSync(path)) return out;
  for (const raw of readFileSync(path, 'utf8').split(/\r?\n/)) {
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

export function loadConfig(): Config {
  const file = parseEnvFile(join(HERE, '.env'));
  const get = (name: string): string | null => {
    const v = file[name];
    return v === undefined || v === '' ? null : v;
  };
  const need = (name: string): string => {
    const v = get(name);
    if (v === null) throw new Error(`plainhttp: configuration ${name} is missing (${join(HERE, '.env')})`);
    return v;
  };
  // The key set: jwks.json beside this module; JWKS_FILE when it names an existing file.
  const jwksFileSetting = get('JWKS_FILE');
  let jwksPath = join(HERE, 'jwks.json');
  if (jwksFileSetting) {
    const candidate = isAbsolute(jwksFileSetting) ? jwksFileSetting : join(HERE, jwksFileSetting);
    if (existsSync(candidate)) jwksPath = candidate;
  }
  const jwks = JSON.parse(readFileSync(jwksPath, 'utf8')) as { keys: Record<string, unknown>[] };
  const until = get('GUEST_SESSION_KEY_PREVIOUS_UNTIL');
  const untilMs = until ? Date.parse(until) : NaN;
  const seed = get('SEED_PATH');
  return {
    docsUrl: need('DOCS_URL').replace(/\/+$/, ''),
    issuer: need('ISSUER'),
    apiAudience: need('API_AUDIENCE'),
    agentAudience: need('AGENT_AUDIENCE'),
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
    guestSessionKeyPrevious: get('GUEST_SESSION_KEY_PREVIOUS'),
    guestSessionKeyPreviousUntil: Number.isFinite(untilMs) ? untilMs : null,
    webSessionContextKey: need('WEB_SESSION_CONTEXT_KEY'),
    proxyIdpSecret: get('PROXY_IDP_SECRET'),
    idpActionSecret: get('IDP_ACTION_SECRET'),
    conversationHubSecret: get('CONVERSATION_HUB_SECRET'),
    accountRecoverySecret: get('ACCOUNT_RECOVERY_SECRET'),
    stripeWebhookSecret: get('STRIPE_WEBHOOK_SECRET'),
    paymentWebhookEnabled: (get('PAYMENT_WEBHOOK_ENABLED') ?? 'true') !== 'false',
    guestRateLimitBudget: Number(get('GUEST_RATE_LIMIT_BUDGET') ?? 300) || 300,
    guestRateLimitWindowSeconds: Number(get('GUEST_RATE_LIMIT_WINDOW_SECONDS') ?? 60) || 60,
    jwks,
    seedPath: seed === null ? join(HERE, '..', '..', 'fixtures', 'seed.json') : isAbsolute(seed) ? seed : join(HERE, seed),
  };
}
