// Carriers of forwarded agent artifacts. The spec names the credentials (a signed invited-agent context, an assistant's
// browser session, "the agent's original browser cookie") but not their headers: the target's own, from the security
// schemes of its description documents or the profile's conventions (conformance/engine/transport/target.ts), lowercased as the
// suite sends headers.
import { learned, type Shop } from '../../engine/runner/check.js';
import { browserSession } from './assistant-session.js';

/** The header of the signed invited-agent context. */
export const contextHeader = (): string => learned().header('invitedAgentContext').toLowerCase();

/**
 * An assistant's browser session beside the web-agent forwarder's token, as request headers: in its header, or as the
 * cookie the deployment declares (`Cookie: <name>=<value>`). Every request that sends the artifact builds it here.
 */
export function browserArtifact(value: string): Record<string, string> {
  const carrier = learned().browserCarrier();
  return carrier.in === 'cookie' ? { cookie: `${carrier.name}=${value}` } : { [carrier.name.toLowerCase()]: value };
}

/**
 * The storefront's request for an assistant agent's browser (spec, Credentials per consumer: "web-agent-forwarder machine
 * token plus the agent's original browser cookie"): the forwarder's token and the browser session of `sessionId`.
 */
export const forwardedBrowserHeaders = async (shop: Shop, sessionId: string): Promise<Record<string, string>> => ({
  authorization: `Bearer ${await shop.mint.invitedAgentForwarder()}`,
  ...browserArtifact(browserSession(shop, sessionId)),
});
