// Request headers the service reads, and which caller kinds may send them (spec, Authentication). Data only.
import type { CallerKind } from './callers.js';

export const HEADERS = {
  guestSession: 'Guest-Session',
  shopperIp: 'Shopper-IP',
  operator: 'Operator',
  /** The spec names the credential (a signed `invited-agent+jwt` context) but not its header: the reference's choice. */
  invitedAgentContext: 'Invited-Agent-Context',
  assistantSubject: 'Assistant-Subject',
  dpop: 'DPoP',
  requestId: 'X-Request-Id',
  traceparent: 'traceparent',
} as const;

/** Caller kinds admitted with each caller-specific header; any other kind sending it is refused at "admit caller". */
export const HEADER_ADMITTED_KINDS: Readonly<
  Record<'Guest-Session' | 'Shopper-IP' | 'Operator' | 'Invited-Agent-Context' | 'Assistant-Subject', readonly CallerKind[]>
> = {
  'Guest-Session': ['guest'],
  'Shopper-IP': ['guest'],
  Operator: ['operator'],
  // Agent artifacts travel only with the forwarder that brings them: with any other credential they are refused, never ignored.
  'Invited-Agent-Context': ['invited-agent'],
  'Assistant-Subject': ['assistant'],
};
