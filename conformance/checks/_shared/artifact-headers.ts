// Header names of forwarded agent artifacts. The spec names the credentials (a signed invited-agent context, an assistant's
// browser session) but not their headers: the target's own, from the security schemes of its description documents or
// the profile's conventions (conformance/engine/target.ts), lowercased as the suite sends headers.
import { learned } from '../../engine/check.js';

/** The header of the signed invited-agent context. */
export const contextHeader = (): string => learned().header('invitedAgentContext').toLowerCase();

/** The header of an assistant's browser session beside the web-agent forwarder's token. */
export const browserHeader = (): string => learned().header('assistantBrowserSession').toLowerCase();
