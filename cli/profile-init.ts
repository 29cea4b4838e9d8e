// Generates a fresh profile: new ES256 issuer key and random secrets (used by `profile init` and for the fixture).
import { randomBytes, randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair } from 'jose';
import type { Profile } from '../contract/profile.js';

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
    rateLimits: { guestBudget: 120, guestWindowSeconds: 60 },
  };
}
